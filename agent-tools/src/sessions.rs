//! The live debugging sessions: a bounded map from short ids (`s1`, `s2`,
//! ...) to sessions, with an idle timeout. Idle time counts from the end of
//! the session's last call, and a session in the middle of a call (a model
//! generation can take long) neither expires nor is evicted. A session that
//! was ended, expired or evicted to make room is remembered (a bounded list)
//! so that using it again says which of these happened, not "unknown id".

use std::collections::{HashMap, VecDeque};
use std::ops::Deref;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::{Duration, Instant};

use ndb_inference::debugger::{Debugger, Session};

/// How many ended ids are remembered for their error message.
const REMEMBERED_GONE: usize = 1024;

/// One live session. Its data is behind its own lock, held only on blocking
/// threads for the duration of one step, so two steps of one session run one
/// after the other and steps of different sessions run side by side.
pub struct LiveSession {
    pub id: String,
    pub debugger: Arc<dyn Debugger>,
    data: Mutex<Session>,
    /// Calls using the session right now.
    busy: AtomicUsize,
    /// When the last call using it ended (or began, while none has ended).
    last_used: Mutex<Instant>,
}

impl LiveSession {
    pub fn lock(&self) -> MutexGuard<'_, Session> {
        // A panic during a step leaves the session as it was before the step
        // (steps are pushed only on success), so a poisoned lock is usable.
        self.data
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
    }

    /// The number of steps taken, unless a call is stepping it right now.
    pub fn steps_if_idle(&self) -> Option<usize> {
        match self.data.try_lock() {
            Ok(session) => Some(session.steps.len()),
            Err(std::sync::TryLockError::Poisoned(poisoned)) => {
                Some(poisoned.into_inner().steps.len())
            }
            Err(std::sync::TryLockError::WouldBlock) => None,
        }
    }

    fn idle_since(&self) -> Option<Instant> {
        if self.busy.load(Ordering::SeqCst) > 0 {
            return None;
        }
        Some(*self.last_used.lock().unwrap_or_else(|p| p.into_inner()))
    }

    fn touch(&self) {
        *self.last_used.lock().unwrap_or_else(|p| p.into_inner()) = Instant::now();
    }
}

/// A session in use by one call: it cannot expire or be evicted while the
/// lease lives, and its idle time starts again when the lease is dropped.
pub struct SessionLease {
    session: Arc<LiveSession>,
}

impl SessionLease {
    fn new(session: Arc<LiveSession>) -> SessionLease {
        session.busy.fetch_add(1, Ordering::SeqCst);
        session.touch();
        SessionLease { session }
    }
}

impl Deref for SessionLease {
    type Target = LiveSession;

    fn deref(&self) -> &LiveSession {
        &self.session
    }
}

impl Drop for SessionLease {
    fn drop(&mut self) {
        self.session.touch();
        self.session.busy.fetch_sub(1, Ordering::SeqCst);
    }
}

/// Why a session cannot be used.
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
pub enum SessionError {
    #[error("session `{id}` was ended with end_session; start a new one with start_session")]
    Ended { id: String },
    #[error("session `{id}` expired after {idle_seconds} s without use; start a new one with start_session")]
    Expired { id: String, idle_seconds: f64 },
    #[error("session `{id}` was closed to make room (at most {max_sessions} sessions at once); end sessions you no longer need, and start a new one with start_session")]
    Evicted { id: String, max_sessions: usize },
    #[error("no session `{id}`; start_session returns a session_id such as `s1`")]
    Unknown { id: String },
    #[error("all {max_sessions} sessions are in the middle of a call; wait for one, or end one with end_session")]
    AllBusy { max_sessions: usize },
    #[error("the program has exited; only inv_step_into, inv_step_over and inv_step_call move from here (or end_session {id})")]
    Exited { id: String },
    #[error("session `{id}` has taken {max_actions} steps, the most one session keeps; start a new one (a breakpoint gets there faster)")]
    TooManySteps { id: String, max_actions: usize },
    #[error("this is the state before the entry call; only forward actions move from here")]
    BeforeEntry,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Gone {
    Ended,
    Expired,
    Evicted,
}

struct Inner {
    live: HashMap<String, Arc<LiveSession>>,
    gone: VecDeque<(String, Gone)>,
    next_id: u64,
}

pub struct Sessions {
    inner: Mutex<Inner>,
    max_sessions: usize,
    idle_timeout: Duration,
}

impl Sessions {
    pub fn new(max_sessions: usize, idle_timeout: Duration) -> Sessions {
        Sessions {
            inner: Mutex::new(Inner {
                live: HashMap::new(),
                gone: VecDeque::new(),
                next_id: 1,
            }),
            max_sessions: max_sessions.max(1),
            idle_timeout,
        }
    }

    fn lock(&self) -> MutexGuard<'_, Inner> {
        self.inner
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
    }

    fn remember(inner: &mut Inner, id: String, gone: Gone) {
        if inner.gone.len() >= REMEMBERED_GONE {
            inner.gone.pop_front();
        }
        inner.gone.push_back((id, gone));
    }

    fn expire(&self, inner: &mut Inner, now: Instant) {
        let expired: Vec<String> = inner
            .live
            .iter()
            .filter(|(_, session)| {
                session
                    .idle_since()
                    .is_some_and(|since| now.saturating_duration_since(since) >= self.idle_timeout)
            })
            .map(|(id, _)| id.clone())
            .collect();
        for id in expired {
            inner.live.remove(&id);
            Self::remember(inner, id, Gone::Expired);
        }
    }

    /// Adds a session, leased to the calling call. When the map is full the
    /// least recently used idle session is evicted (and says so when used
    /// again); when every session is busy, the new one is refused.
    pub fn insert(
        &self,
        debugger: Arc<dyn Debugger>,
        session: Session,
    ) -> Result<SessionLease, SessionError> {
        let now = Instant::now();
        let mut inner = self.lock();
        self.expire(&mut inner, now);
        while inner.live.len() >= self.max_sessions {
            let oldest = inner
                .live
                .iter()
                .filter_map(|(id, session)| Some((id, session.idle_since()?)))
                .min_by_key(|(_, since)| *since)
                .map(|(id, _)| id.clone());
            let Some(id) = oldest else {
                return Err(SessionError::AllBusy {
                    max_sessions: self.max_sessions,
                });
            };
            inner.live.remove(&id);
            Self::remember(&mut inner, id, Gone::Evicted);
        }
        let id = format!("s{}", inner.next_id);
        inner.next_id += 1;
        let live = Arc::new(LiveSession {
            id: id.clone(),
            debugger,
            data: Mutex::new(session),
            busy: AtomicUsize::new(0),
            last_used: Mutex::new(now),
        });
        let lease = SessionLease::new(live.clone());
        inner.live.insert(id, live);
        Ok(lease)
    }

    /// The live session `id`, leased to the calling call.
    pub fn get(&self, id: &str) -> Result<SessionLease, SessionError> {
        let now = Instant::now();
        let mut inner = self.lock();
        self.expire(&mut inner, now);
        match inner.live.get(id) {
            Some(session) => Ok(SessionLease::new(session.clone())),
            None => Err(self.gone(&inner, id)),
        }
    }

    /// Ends the session `id`. A call still using it finishes on its own
    /// copy; the session is gone for every later call.
    pub fn remove(&self, id: &str) -> Result<SessionLease, SessionError> {
        let now = Instant::now();
        let mut inner = self.lock();
        self.expire(&mut inner, now);
        match inner.live.remove(id) {
            Some(session) => {
                Self::remember(&mut inner, id.to_string(), Gone::Ended);
                Ok(SessionLease::new(session))
            }
            None => Err(self.gone(&inner, id)),
        }
    }

    pub fn live_count(&self) -> usize {
        self.lock().live.len()
    }

    fn gone(&self, inner: &Inner, id: &str) -> SessionError {
        let id = id.to_string();
        let gone = inner
            .gone
            .iter()
            .rev()
            .find(|(known, _)| *known == id)
            .map(|(_, gone)| *gone);
        match gone {
            Some(Gone::Ended) => SessionError::Ended { id },
            Some(Gone::Expired) => SessionError::Expired {
                id,
                idle_seconds: self.idle_timeout.as_secs_f64(),
            },
            Some(Gone::Evicted) => SessionError::Evicted {
                id,
                max_sessions: self.max_sessions,
            },
            None => SessionError::Unknown { id },
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use ndb_inference::debugger::TracerDebugger;

    fn session() -> Session {
        Session {
            source: ndb_inference::python::read_source(""),
            entry_call: None,
            start: ndb_inference::debugger::State {
                text: ndb_grammar::TextState {
                    event: ndb_grammar::TextEvent::ExitEntry,
                    inverse: true,
                    src: String::new(),
                    locals: Vec::new(),
                    value: None,
                },
                view: None,
                confidence: None,
                note: None,
            },
            steps: Vec::new(),
        }
    }

    fn debugger() -> Arc<dyn Debugger> {
        Arc::new(TracerDebugger::new(Default::default()))
    }

    fn start(sessions: &Sessions) -> String {
        sessions.insert(debugger(), session()).unwrap().id.clone()
    }

    #[test]
    fn evicts_the_least_recently_used_and_says_so() {
        let sessions = Sessions::new(2, Duration::from_secs(60));
        let first = start(&sessions);
        let second = start(&sessions);
        std::thread::sleep(Duration::from_millis(5));
        drop(sessions.get(&first).unwrap());
        let third = start(&sessions);
        assert_eq!((first.as_str(), third.as_str()), ("s1", "s3"));
        assert!(sessions.get(&first).is_ok());
        let error = sessions.get(&second).err().unwrap();
        assert!(
            matches!(
                error,
                SessionError::Evicted {
                    max_sessions: 2,
                    ..
                }
            ),
            "{error}"
        );
        assert!(error.to_string().contains("closed to make room"), "{error}");
        assert_eq!(sessions.live_count(), 2);
    }

    #[test]
    fn busy_sessions_neither_expire_nor_are_evicted() {
        let sessions = Sessions::new(1, Duration::from_millis(30));
        let busy = sessions.insert(debugger(), session()).unwrap();
        std::thread::sleep(Duration::from_millis(60));
        assert!(
            sessions.get(&busy.id).is_ok(),
            "a session in a call does not expire"
        );
        let refused = sessions.insert(debugger(), session()).err().unwrap();
        assert_eq!(refused, SessionError::AllBusy { max_sessions: 1 });
        let id = busy.id.clone();
        drop(busy);
        // Idle time starts when the call ends.
        assert!(sessions.get(&id).is_ok());
        std::thread::sleep(Duration::from_millis(60));
        assert!(matches!(
            sessions.get(&id).err().unwrap(),
            SessionError::Expired { .. }
        ));
    }

    #[test]
    fn ended_expired_and_unknown_sessions_are_told_apart() {
        let sessions = Sessions::new(8, Duration::from_millis(50));
        let ended = start(&sessions);
        sessions.remove(&ended).unwrap();
        assert_eq!(
            sessions.get(&ended).err().unwrap(),
            SessionError::Ended { id: ended.clone() }
        );
        let idle = start(&sessions);
        std::thread::sleep(Duration::from_millis(80));
        assert!(matches!(
            sessions.get(&idle).err().unwrap(),
            SessionError::Expired { .. }
        ));
        assert_eq!(
            sessions.get("s99").err().unwrap(),
            SessionError::Unknown { id: "s99".into() }
        );
        assert!(sessions.remove(&ended).is_err());
    }
}

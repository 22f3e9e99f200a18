//! The live debugging sessions: a bounded map from short ids (`s1`, `s2`,
//! ...) to sessions, with an idle timeout. A session that was ended, expired
//! or was evicted to make room is remembered (a bounded list) so that using
//! it again says which of these happened, instead of "unknown id".

use std::collections::{HashMap, VecDeque};
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
    pub data: Mutex<Session>,
}

impl LiveSession {
    pub fn lock(&self) -> MutexGuard<'_, Session> {
        // A panic during a step leaves the session as it was before the step
        // (steps are pushed only on success), so a poisoned lock is usable.
        self.data
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Gone {
    Ended,
    Expired,
    Evicted,
}

struct Entry {
    session: Arc<LiveSession>,
    last_used: Instant,
}

struct Inner {
    live: HashMap<String, Entry>,
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
            .filter(|(_, entry)| now.duration_since(entry.last_used) >= self.idle_timeout)
            .map(|(id, _)| id.clone())
            .collect();
        for id in expired {
            inner.live.remove(&id);
            Self::remember(inner, id, Gone::Expired);
        }
    }

    /// Adds a session; when the map is full the least recently used one is
    /// evicted (and says so when used again).
    pub fn insert(&self, debugger: Arc<dyn Debugger>, session: Session) -> Arc<LiveSession> {
        let now = Instant::now();
        let mut inner = self.lock();
        self.expire(&mut inner, now);
        while inner.live.len() >= self.max_sessions {
            let oldest = inner
                .live
                .iter()
                .min_by_key(|(_, entry)| entry.last_used)
                .map(|(id, _)| id.clone());
            match oldest {
                Some(id) => {
                    inner.live.remove(&id);
                    Self::remember(&mut inner, id, Gone::Evicted);
                }
                None => break,
            }
        }
        let id = format!("s{}", inner.next_id);
        inner.next_id += 1;
        let live = Arc::new(LiveSession {
            id: id.clone(),
            debugger,
            data: Mutex::new(session),
        });
        inner.live.insert(
            id,
            Entry {
                session: live.clone(),
                last_used: now,
            },
        );
        live
    }

    /// The live session `id`, marked as used now.
    pub fn get(&self, id: &str) -> Result<Arc<LiveSession>, String> {
        let now = Instant::now();
        let mut inner = self.lock();
        self.expire(&mut inner, now);
        if let Some(entry) = inner.live.get_mut(id) {
            entry.last_used = now;
            return Ok(entry.session.clone());
        }
        Err(self.gone_message(&inner, id))
    }

    /// Ends the session `id`.
    pub fn remove(&self, id: &str) -> Result<Arc<LiveSession>, String> {
        let now = Instant::now();
        let mut inner = self.lock();
        self.expire(&mut inner, now);
        match inner.live.remove(id) {
            Some(entry) => {
                Self::remember(&mut inner, id.to_string(), Gone::Ended);
                Ok(entry.session)
            }
            None => Err(self.gone_message(&inner, id)),
        }
    }

    pub fn live_count(&self) -> usize {
        self.lock().live.len()
    }

    fn gone_message(&self, inner: &Inner, id: &str) -> String {
        let gone = inner
            .gone
            .iter()
            .rev()
            .find(|(known, _)| known == id)
            .map(|(_, gone)| *gone);
        match gone {
            Some(Gone::Ended) => {
                format!("session `{id}` was ended with end_session; start a new one with start_session")
            }
            Some(Gone::Expired) => format!(
                "session `{id}` expired after {} s without use; start a new one with start_session",
                self.idle_timeout.as_secs_f64()
            ),
            Some(Gone::Evicted) => format!(
                "session `{id}` was closed to make room (at most {} sessions at once); end sessions you no longer need, and start a new one with start_session",
                self.max_sessions
            ),
            None => format!("no session `{id}`; start_session returns a session_id such as `s1`"),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use ndb_inference::debugger::TracerDebugger;

    fn session() -> Session {
        Session {
            source: "".into(),
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

    #[test]
    fn evicts_the_least_recently_used_and_says_so() {
        let sessions = Sessions::new(2, Duration::from_secs(60));
        let first = sessions.insert(debugger(), session()).id.clone();
        let second = sessions.insert(debugger(), session()).id.clone();
        sessions.get(&first).unwrap();
        let third = sessions.insert(debugger(), session()).id.clone();
        assert_eq!((first.as_str(), third.as_str()), ("s1", "s3"));
        assert!(sessions.get(&first).is_ok());
        let error = sessions.get(&second).err().unwrap();
        assert!(error.contains("closed to make room"), "{error}");
        assert_eq!(sessions.live_count(), 2);
    }

    #[test]
    fn ended_expired_and_unknown_sessions_are_told_apart() {
        let sessions = Sessions::new(8, Duration::from_millis(50));
        let ended = sessions.insert(debugger(), session()).id.clone();
        sessions.remove(&ended).unwrap();
        assert!(sessions.get(&ended).err().unwrap().contains("was ended"));
        let idle = sessions.insert(debugger(), session()).id.clone();
        std::thread::sleep(Duration::from_millis(80));
        assert!(sessions.get(&idle).err().unwrap().contains("expired"));
        assert!(sessions.get("s99").err().unwrap().contains("no session"));
        assert!(sessions.remove(&ended).is_err());
    }
}

//! The question/answer engine every front end shares: the language server
//! asks it questions answered off the request path, the agent tools and the
//! CLI take their debugger from it ([`Engine::debugger`]: the tracer, the
//! model or both, the model loaded once) and answer through
//! [`answer_blocking`]. For the language server: a cache keyed by
//! the source's hash, in-flight work shared between askers, cancellation of
//! work whose source is no longer open, a quiet period after edits, one
//! question at a time (the model owns the CPU), and the model loaded once in
//! the background. No protocol types: the server turns [`Answer`]s into hints
//! and hovers and is told through [`Observer`] when fresh ones arrive.

use std::collections::HashSet;
use std::panic::AssertUnwindSafe;
use std::sync::{Arc, Mutex, RwLock};
use std::time::{Duration, Instant};

use crate::cache::{Cache, CacheStats};
pub use crate::debugger::Backend;
use crate::debugger::{
    AutoDebugger, Cancel, DebugError, Debugger, Sampled, Source, State, TracerDebugger,
};
use crate::neural::{ModelSpec, NeuralDebugger};
use crate::ops;
use crate::suggest::{self, SuggestError, Suggestion};
use crate::tracer::TracerConfig;
use dashmap::DashMap;
use tokio::sync::{watch, Semaphore};

use crate::ops::OutputMode;

/// The fewest samples "suggest inputs" draws (the `samples` setting, k, is
/// used when larger): one greedy proposal cannot be ranked.
pub const MIN_SUGGESTION_SAMPLES: usize = 4;

/// What is asked about one source.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum Question {
    /// The state when execution first reaches this 1-based line.
    AtLine(u32),
    /// The entry call's return value (or exception).
    Output(OutputMode),
    /// Inputs of `function` that give `output` (any output when `None`).
    Suggest {
        function: String,
        output: Option<String>,
        plan: SuggestPlan,
    },
    /// Whether running the entry call gives `expected` (repr text).
    Check { expected: String },
}

/// How inputs are searched for: whether candidates are run (the user
/// allowed running code), whether the model is asked, the budget, and the
/// entry calls the server found (tree-sitter) as seeds.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct SuggestPlan {
    pub run: bool,
    pub use_model: bool,
    pub budget: suggest::Budget,
    pub seeds: Vec<suggest::Seed>,
}

/// A question about one source text.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Key {
    pub source_hash: u64,
    /// Empty for [`Question::Suggest`].
    pub entry_call: String,
    pub question: Question,
    pub engine: Backend,
}

/// An answer, or why there is none.
#[derive(Clone, Debug, PartialEq)]
pub enum Answer {
    State(State),
    Output {
        value: Option<String>,
        raised: bool,
        state: State,
    },
    Suggestions(Vec<Suggestion>),
    /// `None`: could not be checked (the run failed or hit a limit).
    Checked(Option<bool>),
    Failed(Failure),
}

/// Why a question has no answer, kept typed until a handler shows it.
#[derive(Clone, Debug, thiserror::Error)]
pub enum Failure {
    #[error("no model: {0}")]
    NoModel(ModelUnavailable),
    #[error(transparent)]
    Debug(Arc<DebugError>),
    /// Bad input for a suggestion (no parameters, an output that is not a
    /// literal): an answer the user reads.
    #[error(transparent)]
    Suggest(Arc<SuggestError>),
    /// A bug: the work panicked; the server keeps serving.
    #[error("internal error while answering: {0}")]
    Internal(String),
}

/// Answers are compared (tests, the cache of the latest answer) by what
/// they say.
impl PartialEq for Failure {
    fn eq(&self, other: &Failure) -> bool {
        self.to_string() == other.to_string()
    }
}

pub use crate::debugger::ModelUnavailable;

/// The model's loading state.
#[derive(Clone)]
pub enum ModelState {
    NotStarted,
    Loading,
    Ready(Arc<dyn Debugger>),
    Failed(ModelUnavailable),
}

/// What the engine tells the server.
pub trait Observer: Send + Sync {
    /// A fresh answer was cached.
    fn fresh(&self, key: &Key);
    /// A question has run for a while: show progress until `finished`.
    fn long_running(&self, id: u64, title: String);
    fn finished(&self, id: u64);
}

struct Inflight {
    cancel: Cancel,
    done: watch::Receiver<Option<Arc<Answer>>>,
    /// Asked for hints or hovers, not by a command: cancelled when its source
    /// is no longer the text of any open document.
    background: bool,
}

/// Most answers kept; past it the cache starts over.
const MAX_CACHED: usize = 4_096;
/// A question running longer than this gets a `$/progress`.
const PROGRESS_AFTER: Duration = Duration::from_millis(800);

/// The question answerer shared by every request.
pub struct Engine {
    model_spec: Mutex<ModelSpec>,
    model: watch::Sender<ModelState>,
    tracer: RwLock<Arc<TracerDebugger>>,
    cache: Cache<Key, Arc<Answer>>,
    /// The latest answer per question whatever the source, to show (marked
    /// stale) while a fresh one is computed.
    latest: Cache<(String, Question, Backend), (u64, Arc<Answer>)>,
    inflight: DashMap<Key, Inflight>,
    permits: Arc<Semaphore>,
    observer: Mutex<Option<Arc<dyn Observer>>>,
    progress_ids: std::sync::atomic::AtomicU64,
    /// How many questions were worked out (not taken from the cache).
    answered: std::sync::atomic::AtomicU64,
    /// Held while the model loads: whoever asks during a load waits for it
    /// instead of loading a second copy.
    loading: Mutex<()>,
}

impl Engine {
    pub fn new(model_spec: ModelSpec, tracer: TracerConfig) -> Arc<Engine> {
        let (model, _) = watch::channel(ModelState::NotStarted);
        Arc::new(Engine {
            model_spec: Mutex::new(model_spec),
            model,
            tracer: RwLock::new(Arc::new(TracerDebugger::new(tracer))),
            cache: Cache::new(MAX_CACHED),
            latest: Cache::new(MAX_CACHED),
            inflight: DashMap::new(),
            permits: Arc::new(Semaphore::new(1)),
            observer: Mutex::new(None),
            progress_ids: Default::default(),
            answered: Default::default(),
            loading: Mutex::new(()),
        })
    }

    /// An engine whose "model" is the given debugger (tests, benchmarks).
    pub fn with_debugger(debugger: Arc<dyn Debugger>, tracer: TracerConfig) -> Arc<Engine> {
        let engine = Engine::new(ModelSpec::default(), tracer);
        engine.model.send_replace(ModelState::Ready(debugger));
        engine
    }

    pub fn set_observer(&self, observer: Arc<dyn Observer>) {
        *self
            .observer
            .lock()
            .unwrap_or_else(|poison| poison.into_inner()) = Some(observer);
    }

    fn observer(&self) -> Option<Arc<dyn Observer>> {
        self.observer
            .lock()
            .unwrap_or_else(|poison| poison.into_inner())
            .clone()
    }

    /// Uses another interpreter for the tracer (the `python` setting),
    /// keeping every limit the server was started with.
    pub fn set_python(&self, python: &str) {
        let mut tracer = self
            .tracer
            .write()
            .unwrap_or_else(|poison| poison.into_inner());
        let config = TracerConfig {
            python: python.into(),
            ..tracer.config().clone()
        };
        *tracer = Arc::new(TracerDebugger::new(config));
    }

    /// The real tracer (runs code: callers check `allowRunningCode`).
    pub fn tracer_debugger(&self) -> Arc<TracerDebugger> {
        self.tracer()
    }

    fn tracer(&self) -> Arc<TracerDebugger> {
        self.tracer
            .read()
            .unwrap_or_else(|poison| poison.into_inner())
            .clone()
    }

    pub fn model_state(&self) -> ModelState {
        self.model.borrow().clone()
    }

    /// The model's name for tooltips.
    pub fn model_name(&self) -> String {
        match &*self.model.borrow() {
            ModelState::Ready(debugger) => debugger.name(),
            _ => "the neural debugger".to_string(),
        }
    }

    fn spec(&self) -> std::sync::MutexGuard<'_, ModelSpec> {
        self.model_spec
            .lock()
            .unwrap_or_else(|poison| poison.into_inner())
    }

    /// Samples per question the model is loaded with.
    pub fn samples(&self) -> usize {
        self.spec().samples.max(1)
    }

    /// Changes the model to load (before loading starts: the
    /// `initializationOptions` override the command line).
    pub fn configure_model(
        &self,
        path: Option<std::path::PathBuf>,
        server: Option<String>,
        samples: Option<usize>,
    ) {
        let mut spec = self.spec();
        if let Some(path) = path {
            spec.path = Some(path);
            spec.server = None;
        }
        if let Some(server) = server.filter(|server| !server.trim().is_empty()) {
            spec.server = Some(server);
        }
        if let Some(samples) = samples.filter(|&samples| samples > 0) {
            spec.samples = samples;
        }
    }

    /// Starts loading the model on a blocking thread, once. Returns `false`
    /// when it was already started. The result is published to every waiter.
    pub fn start_loading(self: &Arc<Self>) -> bool {
        let mut started = false;
        self.model.send_if_modified(|state| {
            if matches!(state, ModelState::NotStarted) {
                *state = ModelState::Loading;
                started = true;
                true
            } else {
                false
            }
        });
        if started {
            let engine = self.clone();
            tokio::task::spawn_blocking(move || engine.model_blocking());
        }
        started
    }

    /// The model, loaded on this thread if nobody has loaded it yet (a
    /// load under way elsewhere is waited for); the outcome is published to
    /// every waiter and kept: a failed load is not tried again.
    pub fn model_blocking(&self) -> Result<Arc<dyn Debugger>, ModelUnavailable> {
        let _loading = self
            .loading
            .lock()
            .unwrap_or_else(|poison| poison.into_inner());
        match &*self.model.borrow() {
            ModelState::Ready(debugger) => return Ok(debugger.clone()),
            ModelState::Failed(reason) => return Err(reason.clone()),
            ModelState::NotStarted | ModelState::Loading => {}
        }
        self.model.send_replace(ModelState::Loading);
        let spec = self.spec().clone();
        let started = Instant::now();
        let loaded = std::panic::catch_unwind(AssertUnwindSafe(|| NeuralDebugger::load(&spec)));
        let (state, result) = match loaded {
            Ok(Ok(model)) => {
                eprintln!(
                    "ndb: model loaded in {:.1} s",
                    started.elapsed().as_secs_f64()
                );
                let model: Arc<dyn Debugger> = Arc::new(model);
                (ModelState::Ready(model.clone()), Ok(model))
            }
            Ok(Err(error)) => {
                let reason = ModelUnavailable::Load(Arc::new(error));
                (ModelState::Failed(reason.clone()), Err(reason))
            }
            Err(_) => (
                ModelState::Failed(ModelUnavailable::LoaderPanicked),
                Err(ModelUnavailable::LoaderPanicked),
            ),
        };
        self.model.send_replace(state);
        result
    }

    /// Lets the next question try to load the model again after a failed
    /// load (the agent tools: a model installed, or a model server started,
    /// after the first call failed). The language server keeps a failure
    /// until it is configured again.
    pub fn forget_failed_load(&self) {
        self.model.send_if_modified(|state| match state {
            ModelState::Failed(_) => {
                *state = ModelState::NotStarted;
                true
            }
            _ => false,
        });
    }

    /// The debugger that answers for `backend`, blocking: the real tracer
    /// (runs code: callers check that running is allowed), the model
    /// (loaded now if it is not yet), or the tracer where the code runs and
    /// the model, loaded at the first need, where it cannot. `samples`
    /// asks the shared model for another k per question than it was loaded
    /// with, without a second copy of its weights.
    pub fn debugger(
        self: &Arc<Self>,
        backend: Backend,
        samples: Option<usize>,
    ) -> Result<Arc<dyn Debugger>, ModelUnavailable> {
        let loaded_with = self.samples();
        let sampled = move |model: Arc<dyn Debugger>| match samples {
            Some(k) if k.max(1) != loaded_with => Arc::new(Sampled {
                debugger: model,
                k: k.max(1),
            }) as Arc<dyn Debugger>,
            _ => model,
        };
        match backend {
            Backend::Tracer => Ok(self.tracer()),
            Backend::Model => self.model_blocking().map(sampled),
            Backend::Auto => {
                let engine = self.clone();
                Ok(Arc::new(AutoDebugger::new(self.tracer(), move || {
                    engine.model_blocking().map(sampled)
                })))
            }
        }
    }

    /// Waits until the model is loaded or has failed; starts loading it
    /// when nobody has yet.
    pub async fn model(self: &Arc<Self>) -> Result<Arc<dyn Debugger>, ModelUnavailable> {
        self.start_loading();
        let mut receiver = self.model.subscribe();
        loop {
            match &*receiver.borrow_and_update() {
                ModelState::Ready(debugger) => return Ok(debugger.clone()),
                ModelState::Failed(reason) => return Err(reason.clone()),
                ModelState::NotStarted | ModelState::Loading => {}
            }
            if receiver.changed().await.is_err() {
                return Err(ModelUnavailable::ShuttingDown);
            }
        }
    }

    /// The cached answer, if any.
    pub fn cached(&self, key: &Key) -> Option<Arc<Answer>> {
        self.cache.get(key)
    }

    /// How many questions were worked out since the start (cache hits and
    /// cancelled questions before their work began not counted).
    pub fn answered(&self) -> u64 {
        self.answered.load(std::sync::atomic::Ordering::Relaxed)
    }

    /// The latest answer to the same question about any source, with the
    /// hash of that source.
    pub fn latest(&self, key: &Key) -> Option<(u64, Arc<Answer>)> {
        self.latest
            .peek(&(key.entry_call.clone(), key.question.clone(), key.engine))
    }

    /// Hits and misses of the answer cache.
    pub fn cache_stats(&self) -> CacheStats {
        self.cache.stats()
    }

    /// Asks a question: returns a receiver that holds the answer once known
    /// (already, when cached). The sender is dropped without an answer when
    /// the question is cancelled. `quiet` is waited before the work starts,
    /// so rapid edits do not each start one.
    pub fn ask(
        self: &Arc<Self>,
        key: Key,
        source: Arc<Source>,
        samples: usize,
        background: bool,
        quiet: Duration,
    ) -> watch::Receiver<Option<Arc<Answer>>> {
        if let Some(answer) = self.cached(&key) {
            return watch::channel(Some(answer)).1;
        }
        match self.inflight.entry(key.clone()) {
            dashmap::Entry::Occupied(mut occupied) => {
                if !background {
                    occupied.get_mut().background = false;
                }
                occupied.get().done.clone()
            }
            dashmap::Entry::Vacant(vacant) => {
                let (sender, receiver) = watch::channel(None);
                let cancel = Cancel::new();
                vacant.insert(Inflight {
                    cancel: cancel.clone(),
                    done: receiver.clone(),
                    background,
                });
                let engine = self.clone();
                tokio::spawn(async move {
                    let answer = engine.answer(&key, source, samples, &cancel, quiet).await;
                    engine.inflight.remove(&key);
                    if let Some(answer) = answer {
                        if !cancel.is_cancelled() {
                            engine.store(&key, answer.clone());
                            let _ = sender.send(Some(answer));
                            if let Some(observer) = engine.observer() {
                                observer.fresh(&key);
                            }
                        }
                    }
                });
                receiver
            }
        }
    }

    /// Asks and waits, at most `timeout` (`None`: until answered). `None`
    /// when cancelled or timed out.
    pub async fn ask_and_wait(
        self: &Arc<Self>,
        key: Key,
        source: Arc<Source>,
        samples: usize,
        background: bool,
        timeout: Option<Duration>,
    ) -> Option<Arc<Answer>> {
        let mut receiver = self.ask(key, source, samples, background, Duration::ZERO);
        let wait = async {
            loop {
                if let Some(answer) = receiver.borrow_and_update().clone() {
                    return Some(answer);
                }
                if receiver.changed().await.is_err() {
                    return receiver.borrow().clone();
                }
            }
        };
        match timeout {
            Some(timeout) => tokio::time::timeout(timeout, wait).await.ok().flatten(),
            None => wait.await,
        }
    }

    /// Cancels background questions about sources that no open document has
    /// any more.
    pub fn cancel_stale(&self, live_hashes: &HashSet<u64>) {
        self.inflight.retain(|key, inflight| {
            let stale = inflight.background && !live_hashes.contains(&key.source_hash);
            if stale {
                inflight.cancel.cancel();
            }
            !stale
        });
    }

    /// Cancels everything (shutdown).
    pub fn cancel_all(&self) {
        for entry in self.inflight.iter() {
            entry.cancel.cancel();
        }
        self.inflight.clear();
    }

    fn store(&self, key: &Key, answer: Arc<Answer>) {
        self.cache.insert(key.clone(), answer.clone());
        // Failures are not shown in place of an older good answer.
        if !matches!(*answer, Answer::Failed(_)) {
            self.latest.insert(
                (key.entry_call.clone(), key.question.clone(), key.engine),
                (key.source_hash, answer),
            );
        }
    }

    async fn answer(
        self: &Arc<Self>,
        key: &Key,
        source: Arc<Source>,
        samples: usize,
        cancel: &Cancel,
        quiet: Duration,
    ) -> Option<Arc<Answer>> {
        if !quiet.is_zero() {
            tokio::time::sleep(quiet).await;
        }
        if cancel.is_cancelled() {
            return None;
        }
        let debugger: Arc<dyn Debugger> = match key.engine {
            Backend::Tracer => self.tracer(),
            Backend::Auto => {
                // Loading goes on in the background; a job waits for the
                // model only when the code cannot run.
                self.start_loading();
                match self.debugger(Backend::Auto, None) {
                    Ok(debugger) => debugger,
                    Err(reason) => return Some(Arc::new(Answer::Failed(Failure::NoModel(reason)))),
                }
            }
            Backend::Model => match self.model().await {
                Ok(model) => model,
                // Not cached: the model may be configured later.
                Err(reason) => return Some(Arc::new(Answer::Failed(Failure::NoModel(reason)))),
            },
        };
        let permit = self.permits.clone().acquire_owned().await.ok()?;
        if cancel.is_cancelled() {
            return None;
        }
        let tracer = self.tracer();
        let job_key = key.clone();
        let job_cancel = cancel.clone();
        let mut job = tokio::task::spawn_blocking(move || {
            let _permit = permit;
            answer_blocking(&*debugger, &tracer, &job_key, &source, samples, &job_cancel)
        });
        let result = tokio::select! {
            result = &mut job => result,
            () = tokio::time::sleep(PROGRESS_AFTER) => {
                let id = self.progress_ids.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
                let observer = self.observer();
                if let Some(observer) = &observer {
                    observer.long_running(id, describe(key));
                }
                let result = job.await;
                if let Some(observer) = &observer {
                    observer.finished(id);
                }
                result
            }
        };
        self.answered
            .fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        match result {
            Ok(Err(DebugError::Cancelled)) => None,
            Ok(Ok(answer)) => Some(Arc::new(answer)),
            Ok(Err(error)) => Some(Arc::new(Answer::Failed(Failure::Debug(Arc::new(error))))),
            Err(join_error) => Some(Arc::new(Answer::Failed(Failure::Internal(
                join_error.to_string(),
            )))),
        }
    }
}

/// A title for progress reports.
fn describe(key: &Key) -> String {
    match &key.question {
        Question::AtLine(line) => format!("ndb: predicting line {line} of {}", key.entry_call),
        Question::Output(_) => format!("ndb: predicting {}", key.entry_call),
        Question::Suggest { function, .. } => format!("ndb: suggesting inputs for {function}"),
        Question::Check { .. } => format!("ndb: running {}", key.entry_call),
    }
}

/// Answers one question, blocking (the engine calls it on a blocking
/// thread; tests and benchmarks call it directly). `tracer` answers
/// [`Question::Check`].
pub fn answer_blocking(
    debugger: &dyn Debugger,
    tracer: &TracerDebugger,
    key: &Key,
    source: &Arc<Source>,
    samples: usize,
    cancel: &Cancel,
) -> Result<Answer, DebugError> {
    match &key.question {
        Question::AtLine(line) => {
            let session = ops::predict_at_line(debugger, source, &key.entry_call, *line, cancel)?;
            Ok(Answer::State(session.current().clone()))
        }
        Question::Output(mode) => {
            let prediction = ops::predict_output(debugger, source, &key.entry_call, *mode, cancel)?;
            Ok(Answer::Output {
                value: prediction.value,
                raised: prediction.raised,
                state: prediction.state,
            })
        }
        Question::Suggest {
            function,
            output,
            plan,
        } => {
            // Ranking needs several proposals: at least
            // MIN_SUGGESTION_SAMPLES, whatever k predictions use.
            let mut request = suggest::Request::new(function, output.as_deref());
            request.samples = if plan.use_model {
                samples.max(MIN_SUGGESTION_SAMPLES)
            } else {
                0
            };
            request.budget = plan.budget;
            request.seeds = plan.seeds.clone();
            // With the model off `debugger` is the tracer, not a model.
            let model = (key.engine == Backend::Model && plan.use_model).then_some(debugger);
            let runner = plan.run.then_some(tracer);
            match suggest::suggest(model, runner, source, &request, cancel) {
                Ok(report) => Ok(Answer::Suggestions(report.suggestions)),
                Err(SuggestError::Debug(error)) => Err(error),
                // Bad input (no parameters, an output that is no literal)
                // is an answer the user reads, not a failure of the engine.
                Err(other) => Ok(Answer::Failed(Failure::Suggest(Arc::new(other)))),
            }
        }
        Question::Check { expected } => Ok(Answer::Checked(ops::verify_output(
            tracer,
            source,
            &key.entry_call,
            expected,
        ))),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn another_interpreter_keeps_the_limits_the_server_started_with() {
        let limits = TracerConfig {
            max_events: 77,
            max_stdout_bytes: 999,
            ..TracerConfig::default()
        };
        let engine = Engine::new(ModelSpec::default(), limits);
        engine.set_python("/opt/python3.12/bin/python3");
        let config = engine.tracer_debugger().config().clone();
        assert_eq!(
            config.python,
            std::path::PathBuf::from("/opt/python3.12/bin/python3")
        );
        assert_eq!((config.max_events, config.max_stdout_bytes), (77, 999));
    }

    #[test]
    fn the_model_is_loaded_at_the_first_need_and_a_failed_load_is_kept_until_forgotten() {
        let spec = ModelSpec {
            path: Some("/nonexistent/ndb-model".into()),
            ..ModelSpec::default()
        };
        let engine = Engine::new(spec, TracerConfig::default());
        let tracer = engine.tracer_debugger().name();
        assert_eq!(
            engine.debugger(Backend::Tracer, None).unwrap().name(),
            tracer
        );
        // `auto` starts without the model: the tracer may answer everything.
        let auto = engine.debugger(Backend::Auto, Some(3));
        assert!(auto.is_ok());
        assert!(matches!(engine.model_state(), ModelState::NotStarted));
        let Err(error) = engine.debugger(Backend::Model, None) else {
            panic!("there is no model at that path");
        };
        assert!(
            error.to_string().contains("/nonexistent/ndb-model"),
            "{error}"
        );
        assert!(matches!(engine.model_state(), ModelState::Failed(_)));
        // The failure is kept (the language server reports it once) ...
        assert!(engine.model_blocking().is_err());
        assert!(matches!(engine.model_state(), ModelState::Failed(_)));
        // ... until a front end that retries forgets it.
        engine.forget_failed_load();
        assert!(matches!(engine.model_state(), ModelState::NotStarted));
    }
}

//! The one question every front end asks: "given the source, the states so
//! far and an action, what state comes next?", and its two answers: the real
//! tracer ([`TracerDebugger`]) and the neural debugger
//! ([`crate::neural::NeuralDebugger`]). The CLI, the language server and the
//! agent tools all go through [`Debugger`].
//!
//! The interface is synchronous: a call blocks until the state is known, is
//! cancelled, or fails. Async callers run it on a blocking thread
//! (`tokio::task::spawn_blocking`).

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;

use ndb_grammar::text::{delta_possible, text_action};
pub use ndb_grammar::Source;
use ndb_grammar::{
    Action, Cursor, EventKind, ExitStatus, StateTree, StateView, TextState, TextStep,
    TextTrajectory,
};

use crate::cache::Cache;
use crate::tracer::{trace_source, TracerConfig, TracerError};

/// A stop of the debugger as every front end shows it, predicted or real.
#[derive(Clone, Debug, PartialEq)]
pub struct State {
    /// The state in the text language (source text, locals, value).
    pub text: TextState,
    /// The state with line number and depth, as `ndb step` prints it; `None`
    /// for the inverse exit before the entry call.
    pub view: Option<StateView>,
    /// How sure the model is of this state ([`Confidence::value`]); `None`
    /// for the real tracer, which is certain.
    pub confidence: Option<Confidence>,
    /// Something the user should know about how the state was obtained,
    /// such as steps left out of the model's prompt.
    pub note: Option<String>,
}

/// How sure the model is of an answer: `votes` of `samples` gave it, and
/// the model gave it `probability` (the product of its tokens'
/// probabilities, mean over the samples that gave it).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Confidence {
    pub votes: usize,
    pub samples: usize,
    pub probability: Option<f64>,
}

/// Whether an answer is worth believing: [`Confidence::value`] at or above
/// [`LIKELY_THRESHOLD`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Verdict {
    Likely,
    Guess,
}

impl Verdict {
    pub fn as_str(self) -> &'static str {
        match self {
            Verdict::Likely => "likely",
            Verdict::Guess => "guess",
        }
    }
}

/// The confidence from which an answer is called likely rather than a
/// guess, read from the default model's reliability table on held-out
/// states (inference/default-model/README.md): at and above it, answers
/// were right at least half the time.
pub const LIKELY_THRESHOLD: f64 = 0.5;

impl Confidence {
    /// The share of samples that agreed, in `[0, 1]`.
    pub fn share(self) -> f64 {
        if self.samples == 0 {
            0.0
        } else {
            self.votes as f64 / self.samples as f64
        }
    }

    /// The number every front end shows, in `[0, 1]`: at k = 1 the
    /// answer's own probability (one sample always agrees with itself, so
    /// agreement says nothing); at k > 1 the mean of the agreement and the
    /// probability. Without a probability, the agreement alone.
    pub fn value(self) -> f64 {
        match self.probability {
            Some(p) if self.samples <= 1 => p.clamp(0.0, 1.0),
            Some(p) => ((self.share() + p.clamp(0.0, 1.0)) / 2.0).clamp(0.0, 1.0),
            None => self.share(),
        }
    }

    pub fn verdict(self) -> Verdict {
        if self.value() >= LIKELY_THRESHOLD {
            Verdict::Likely
        } else {
            Verdict::Guess
        }
    }
}

/// One action and the state it led to.
#[derive(Clone, Debug, PartialEq)]
pub struct Step {
    pub action: Action,
    pub state: State,
}

/// A source as a question takes it: text, read here once (its lines and
/// its functions, by the one Python reader), or a source already read,
/// shared as it is (the language server reads each document version once).
pub trait IntoSource {
    fn into_source(self) -> Arc<Source>;
}

impl IntoSource for &str {
    fn into_source(self) -> Arc<Source> {
        crate::python::read_source(self)
    }
}

impl IntoSource for &String {
    fn into_source(self) -> Arc<Source> {
        crate::python::read_source(self.as_str())
    }
}

impl IntoSource for &Arc<str> {
    fn into_source(self) -> Arc<Source> {
        crate::python::read_source(self.clone())
    }
}

impl IntoSource for Arc<Source> {
    fn into_source(self) -> Arc<Source> {
        self
    }
}

impl IntoSource for &Arc<Source> {
    fn into_source(self) -> Arc<Source> {
        self.clone()
    }
}

/// A debugging session so far: the source, the call that started it (when
/// known), the first state and the steps taken.
#[derive(Clone, Debug, PartialEq)]
pub struct Session {
    /// The source, read once for the whole session (its lines and
    /// functions), shared with every question about it.
    pub source: Arc<Source>,
    /// Such as `f([1, 2], k=3)`. Needed by the real tracer; a session that
    /// starts from a return state (suggesting inputs) has none.
    pub entry_call: Option<String>,
    pub start: State,
    pub steps: Vec<Step>,
}

impl Session {
    /// The latest state.
    pub fn current(&self) -> &State {
        self.steps.last().map_or(&self.start, |step| &step.state)
    }

    /// The whole session in the text language, as `ndb step --format text`
    /// prints a walk (ended by `<|trace_end|>`).
    pub fn to_text(&self) -> String {
        let mut trajectory = self.trajectory(0);
        trajectory.ended = true;
        ndb_grammar::text::print_trajectory(&trajectory)
    }

    /// The actions taken so far.
    pub fn actions(&self) -> Vec<Action> {
        self.steps.iter().map(|step| step.action).collect()
    }
}

/// Whether the step from `previous` to `next` is written with delta locals,
/// as in the training data: one step (into or over, either direction)
/// between call/line states of the same frame, landing on a line.
fn is_delta_step(previous: &State, action: Action, next: &State) -> bool {
    let step = matches!(
        action,
        Action::StepInto | Action::StepOver | Action::InvStepInto | Action::InvStepOver
    );
    let (
        Some(StateView::Event {
            kind: from_kind,
            depth: from_depth,
            ..
        }),
        Some(StateView::Event {
            kind: EventKind::Line,
            depth: to_depth,
            ..
        }),
    ) = (&previous.view, &next.view)
    else {
        return false;
    };
    step && matches!(from_kind, EventKind::Call | EventKind::Line)
        && from_depth == to_depth
        && delta_possible(&previous.text, &next.text)
}

impl Session {
    /// The session in the text language, without its oldest `skip` steps (the
    /// model's prompt when the whole session does not fit its context).
    pub(crate) fn trajectory(&self, skip: usize) -> TextTrajectory {
        let session = self;
        let source = &*session.source;
        let mut steps = Vec::new();
        let mut previous = &session.start;
        for (index, step) in session.steps.iter().enumerate() {
            // After a gap the first kept step is written in full: its delta base
            // would be a state the model cannot see.
            let delta =
                (skip == 0 || index > skip) && is_delta_step(previous, step.action, &step.state);
            if index >= skip {
                steps.push(TextStep {
                    action: text_action(source, step.action),
                    state: step.state.text.clone(),
                    delta,
                });
            }
            previous = &step.state;
        }
        TextTrajectory {
            source: source.to_string(),
            start: session.start.text.clone(),
            steps,
            ended: false,
        }
    }
}

/// A flag a caller sets to abandon a request; checked between and during
/// model generations. Clones share the flag.
#[derive(Clone, Debug, Default)]
pub struct Cancel(Arc<AtomicBool>);

impl Cancel {
    pub fn new() -> Cancel {
        Cancel::default()
    }

    pub fn cancel(&self) {
        self.0.store(true, Ordering::SeqCst);
    }

    pub fn is_cancelled(&self) -> bool {
        self.0.load(Ordering::SeqCst)
    }
}

/// Why no state could be given.
#[derive(Debug, thiserror::Error)]
pub enum DebugError {
    #[error(transparent)]
    Tracer(#[from] TracerError),
    #[error("the real tracer needs an entry call such as `f(1, 2)`; this session has none")]
    NoEntryCall,
    #[error("the entry call cannot be bound without running code: {0}")]
    Entry(#[source] TracerError),
    #[error("no function starts at line {line} of the source")]
    NoFunctionAt { line: u32 },
    #[error("no function `{name}` in the source")]
    NoFunction { name: String },
    #[error("the model's answer does not parse ({errors}); nothing was guessed. Answer: {text:?}")]
    Malformed { text: String, errors: String },
    #[error("the model's answer was cut off after {tokens} tokens; nothing was guessed. Partial answer: {text:?}")]
    CutOff { text: String, tokens: usize },
    #[error("the request was cancelled")]
    Cancelled,
    #[error("the session has already ended (exit state); start a new one")]
    Ended,
    #[error("the debugger gave no answer")]
    NoAnswer,
    /// The auto engine: the code could not run and no model could be had.
    #[error("the code could not run here ({why}) and no model is loaded: {reason}")]
    NoModel {
        why: String,
        reason: ModelUnavailable,
    },
    #[error(
        "the source and the first state take {tokens} tokens; the model's context holds \
         {context} (with {answer} for the answer)"
    )]
    PromptTooLong {
        tokens: usize,
        context: usize,
        answer: usize,
    },
    #[error("the model panicked: {0}")]
    Panicked(String),
    /// An error mistral.rs reported (it gives its errors as text).
    #[error("model error: {0}")]
    Engine(String),
}

/// Which debugger answers: the one choice every front end offers (the
/// editor's `engine` setting, `--backend` of `ndb step` and the agent tools).
#[derive(
    Clone, Copy, Debug, Default, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize,
)]
#[serde(rename_all = "lowercase")]
pub enum Backend {
    /// The neural debugger: predicts, runs nothing.
    #[default]
    Model,
    /// The real tracer: runs the code (sandboxed and bounded; only when the
    /// user allows running code).
    #[serde(alias = "trace")]
    Tracer,
    /// The tracer where the code runs, the model where it cannot (a missing
    /// module or name, a limit); every state says which gave it.
    Auto,
}

impl Backend {
    /// The spellings [`Backend::from_str`](std::str::FromStr) reads.
    pub const NAMES: [&'static str; 4] = ["model", "tracer", "trace", "auto"];

    pub fn name(self) -> &'static str {
        match self {
            Backend::Model => "model",
            Backend::Tracer => "tracer",
            Backend::Auto => "auto",
        }
    }

    /// Whether answers may come from running the code.
    pub fn runs_code(self) -> bool {
        self != Backend::Model
    }
}

impl std::str::FromStr for Backend {
    type Err = crate::choice::UnknownChoice;

    fn from_str(text: &str) -> Result<Backend, Self::Err> {
        match text {
            "model" => Ok(Backend::Model),
            "tracer" | "trace" => Ok(Backend::Tracer),
            "auto" => Ok(Backend::Auto),
            other => Err(crate::choice::UnknownChoice::new(
                "backend",
                other,
                "model, tracer (or trace), auto",
            )),
        }
    }
}

/// Answers "what state comes next".
pub trait Debugger: Send + Sync {
    /// A short name for reports: `trace`, or the model's file name.
    fn name(&self) -> String;

    /// The entry function's call state for `entry_call` (such as
    /// `f([1, 2])`).
    fn start(
        &self,
        source: &Source,
        entry_call: &str,
        cancel: &Cancel,
    ) -> Result<State, DebugError>;

    /// The state `action` leads to from the session's current state.
    fn next(&self, session: &Session, action: Action, cancel: &Cancel)
        -> Result<State, DebugError>;

    /// Up to `k` distinct answers for `action`, most agreed first (the model
    /// samples `k` times; the tracer has exactly one answer).
    fn candidates(
        &self,
        session: &Session,
        action: Action,
        k: usize,
        cancel: &Cancel,
    ) -> Result<Vec<State>, DebugError> {
        let _ = k;
        Ok(vec![self.next(session, action, cancel)?])
    }
}

/// A shared debugger asked for `k` samples per question, whatever it was
/// loaded with: a per-request k (and so a per-call `samples` in the agent
/// tools) costs no second copy of the model's weights.
pub struct Sampled {
    pub debugger: Arc<dyn Debugger>,
    pub k: usize,
}

impl Debugger for Sampled {
    fn name(&self) -> String {
        self.debugger.name()
    }

    fn start(
        &self,
        source: &Source,
        entry_call: &str,
        cancel: &Cancel,
    ) -> Result<State, DebugError> {
        self.debugger.start(source, entry_call, cancel)
    }

    fn next(
        &self,
        session: &Session,
        action: Action,
        cancel: &Cancel,
    ) -> Result<State, DebugError> {
        self.debugger
            .candidates(session, action, self.k, cancel)?
            .into_iter()
            .next()
            .ok_or(DebugError::NoAnswer)
    }

    fn candidates(
        &self,
        session: &Session,
        action: Action,
        k: usize,
        cancel: &Cancel,
    ) -> Result<Vec<State>, DebugError> {
        self.debugger.candidates(session, action, k, cancel)
    }
}

/// Real values where the code runs, the model's predictions where it
/// cannot: the editor's and the agents' `auto` engine. The real tracer
/// answers first; when the file cannot load (a missing module, a top level
/// that raises), the entry call names something missing, Python or the
/// sandbox is unavailable, or the run hit a limit before the asked state,
/// the model answers instead and the state's note says why. Real states
/// carry no confidence; predicted ones do, so every front end marks each
/// state for what it is.
pub struct AutoDebugger {
    tracer: Arc<TracerDebugger>,
    model: ModelOnDemand,
}

/// The model an [`AutoDebugger`] falls back on, asked for only when the code
/// cannot run: loading a model costs seconds that the tracer's answers do
/// not need. It gives the model, or why none can be loaded (said where the
/// model would have answered).
pub type ModelOnDemand = Box<dyn Fn() -> Result<Arc<dyn Debugger>, ModelUnavailable> + Send + Sync>;

/// Why no model answers: the one model-load error every front end renders.
#[derive(Clone, Debug, thiserror::Error)]
pub enum ModelUnavailable {
    #[error(transparent)]
    Load(Arc<crate::neural::ModelError>),
    #[error("the model loader panicked")]
    LoaderPanicked,
    #[error("the server is shutting down")]
    ShuttingDown,
}

impl From<crate::neural::ModelError> for ModelUnavailable {
    fn from(error: crate::neural::ModelError) -> ModelUnavailable {
        ModelUnavailable::Load(Arc::new(error))
    }
}

impl AutoDebugger {
    pub fn new(
        tracer: Arc<TracerDebugger>,
        model: impl Fn() -> Result<Arc<dyn Debugger>, ModelUnavailable> + Send + Sync + 'static,
    ) -> AutoDebugger {
        AutoDebugger {
            tracer,
            model: Box::new(model),
        }
    }

    /// Why the tracer cannot answer here, when the model may instead;
    /// `None` for answers to keep (a syntax error is the user's to fix).
    fn cannot_run(error: &DebugError) -> Option<String> {
        match error {
            DebugError::Tracer(TracerError::Syntax(_)) => None,
            DebugError::Tracer(error) => Some(error.to_string()),
            _ => None,
        }
    }

    /// The tracer's `answer`, or the model's (`ask`) when the tracer could
    /// not run the code.
    fn or_predicted(
        &self,
        answer: Result<State, DebugError>,
        ask: impl FnOnce(&dyn Debugger) -> Result<State, DebugError>,
    ) -> Result<State, DebugError> {
        match answer {
            Err(error) => match Self::cannot_run(&error) {
                Some(why) => self.predicted(why, ask),
                None => Err(error),
            },
            ok => ok,
        }
    }

    fn predicted(
        &self,
        why: String,
        ask: impl FnOnce(&dyn Debugger) -> Result<State, DebugError>,
    ) -> Result<State, DebugError> {
        let model = (self.model)().map_err(|reason| DebugError::NoModel {
            why: why.clone(),
            reason,
        })?;
        let mut state = ask(&*model)?;
        let note = format!("predicted, not run: {why}");
        state.note = Some(match state.note.take() {
            Some(other) => format!("{note}; {other}"),
            None => note,
        });
        Ok(state)
    }
}

impl Debugger for AutoDebugger {
    fn name(&self) -> String {
        "trace, else the model".to_string()
    }

    fn start(
        &self,
        source: &Source,
        entry_call: &str,
        cancel: &Cancel,
    ) -> Result<State, DebugError> {
        self.or_predicted(self.tracer.start(source, entry_call, cancel), |model| {
            model.start(source, entry_call, cancel)
        })
    }

    fn next(
        &self,
        session: &Session,
        action: Action,
        cancel: &Cancel,
    ) -> Result<State, DebugError> {
        match self.tracer.next(session, action, cancel) {
            Ok(state) => match &state.view {
                Some(StateView::Exit {
                    status: ExitStatus::Never,
                    ..
                }) => {
                    let why = session
                        .entry_call
                        .as_deref()
                        .and_then(|call| self.tracer.tree(&session.source, call).ok())
                        .and_then(|tree| tree.trace().exit.reason.clone())
                        .unwrap_or_else(|| "the run hit a limit".to_string());
                    self.predicted(format!("the run was cut off ({why})"), |model| {
                        model.next(session, action, cancel)
                    })
                }
                _ => Ok(state),
            },
            error => self.or_predicted(error, |model| model.next(session, action, cancel)),
        }
    }
}

/// Starts a session at the entry call and applies `actions` one by one,
/// feeding each answer back. Stops early at an exit state.
pub fn run_actions(
    debugger: &dyn Debugger,
    source: impl IntoSource,
    entry_call: &str,
    actions: &[Action],
    cancel: &Cancel,
) -> Result<Session, DebugError> {
    let source = source.into_source();
    let start = debugger.start(&source, entry_call, cancel)?;
    let mut session = Session {
        source,
        entry_call: Some(entry_call.to_string()),
        start,
        steps: Vec::new(),
    };
    for &action in actions {
        let state = debugger.next(&session, action, cancel)?;
        session.steps.push(Step { action, state });
    }
    Ok(session)
}

/// The real tracer as a [`Debugger`]: runs the entry call once per source and
/// call (cached), then replays the session's actions on the recorded state
/// tree. Runs the user's code, bounded by its [`TracerConfig`].
pub struct TracerDebugger {
    config: TracerConfig,
    trees: Cache<(Arc<str>, String), Arc<StateTree>>,
}

/// State trees kept per tracer (each holds a whole run, up to the event
/// limit).
const MAX_TREES: usize = 64;

impl TracerDebugger {
    pub fn new(config: TracerConfig) -> TracerDebugger {
        TracerDebugger {
            config,
            trees: Cache::new(MAX_TREES),
        }
    }

    /// The bounds every run keeps.
    pub fn config(&self) -> &TracerConfig {
        &self.config
    }

    /// The recorded tree of `entry_call` on `source` (traced at most once).
    pub fn tree(&self, source: &str, entry_call: &str) -> Result<Arc<StateTree>, DebugError> {
        let key: (Arc<str>, String) = (source.into(), entry_call.to_string());
        if let Some(tree) = self.trees.get(&key) {
            return Ok(tree);
        }
        let trace = trace_source(source, entry_call, &self.config)?;
        let tree = Arc::new(StateTree::new(trace));
        self.trees.insert(key, tree.clone());
        Ok(tree)
    }

    fn state(tree: &StateTree, cursor: Cursor, inverse: bool) -> State {
        State {
            text: tree.text_state(cursor, inverse),
            view: tree.view(cursor),
            confidence: None,
            note: None,
        }
    }
}

impl Debugger for TracerDebugger {
    fn name(&self) -> String {
        "trace".to_string()
    }

    fn start(&self, source: &Source, entry_call: &str, _: &Cancel) -> Result<State, DebugError> {
        let tree = self.tree(source, entry_call)?;
        Ok(Self::state(&tree, tree.start(), false))
    }

    fn next(&self, session: &Session, action: Action, _: &Cancel) -> Result<State, DebugError> {
        let entry_call = session
            .entry_call
            .as_deref()
            .ok_or(DebugError::NoEntryCall)?;
        let tree = self.tree(&session.source, entry_call)?;
        let mut actions = session.actions();
        actions.push(action);
        let cursors = tree.walk(tree.start(), &actions);
        let cursor = cursors.last().copied().unwrap_or(tree.start());
        Ok(Self::state(&tree, cursor, action.is_inverse()))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn confidence(votes: usize, samples: usize, probability: Option<f64>) -> Confidence {
        Confidence {
            votes,
            samples,
            probability,
        }
    }

    #[test]
    fn one_sample_is_as_sure_as_its_probability_not_its_vote() {
        // A vote of one always agrees with itself: that says nothing.
        let guess = confidence(1, 1, Some(0.2));
        assert_eq!(guess.share(), 1.0);
        assert_eq!(guess.value(), 0.2);
        assert_eq!(guess.verdict(), Verdict::Guess);
        assert_eq!(confidence(1, 1, Some(0.9)).verdict(), Verdict::Likely);
    }

    #[test]
    fn several_samples_combine_agreement_and_probability() {
        let c = confidence(6, 8, Some(0.25));
        assert!((c.value() - 0.5).abs() < 1e-12);
        assert_eq!(c.verdict(), Verdict::Likely);
        assert_eq!(confidence(2, 8, Some(0.4)).verdict(), Verdict::Guess);
        // Without probabilities, agreement alone.
        assert_eq!(confidence(3, 4, None).value(), 0.75);
    }
}

//! The `auto` engine: the real tracer where the code runs, the model where
//! it cannot. The tracer is real (`python3`); the model is a stand-in that
//! answers one fixed predicted state, so each test sees which of the two
//! answered.

use ndb_inference::debugger::Source;
use std::sync::Arc;
use std::time::Duration;

use ndb_grammar::{Action, StateView, TextEvent, TextState};
use ndb_inference::debugger::{
    run_actions, AutoDebugger, Cancel, Confidence, DebugError, Debugger, Session, State,
    TracerDebugger,
};
use ndb_inference::tracer::TracerConfig;

/// Answers every question with a predicted `return 42`.
struct Predicts42;

impl Debugger for Predicts42 {
    fn name(&self) -> String {
        "stand-in".into()
    }

    fn start(&self, source: &Source, entry_call: &str, _: &Cancel) -> Result<State, DebugError> {
        let _ = (source, entry_call);
        Ok(State {
            text: TextState {
                event: TextEvent::Call,
                inverse: false,
                src: String::new(),
                locals: Default::default(),
                value: None,
            },
            view: None,
            confidence: None,
            note: None,
        })
    }

    fn next(&self, _: &Session, _: Action, _: &Cancel) -> Result<State, DebugError> {
        Ok(State {
            text: TextState {
                event: TextEvent::Return,
                inverse: false,
                src: String::new(),
                locals: Default::default(),
                value: Some("42".into()),
            },
            view: None,
            confidence: Some(Confidence {
                votes: 1,
                samples: 1,
                probability: Some(0.3),
            }),
            note: None,
        })
    }
}

fn auto(config: TracerConfig) -> AutoDebugger {
    AutoDebugger::new(Arc::new(TracerDebugger::new(config)), || {
        Ok(Arc::new(Predicts42) as Arc<dyn Debugger>)
    })
}

fn step_return(debugger: &dyn Debugger, source: &str, call: &str) -> Result<State, DebugError> {
    run_actions(
        debugger,
        source,
        call,
        &[Action::StepReturn],
        &Cancel::new(),
    )
    .map(|session| session.current().clone())
}

const RUNS: &str = "def double(x):\n    return x * 2\n";

#[test]
fn code_that_runs_gives_real_values() {
    let state = step_return(&auto(TracerConfig::default()), RUNS, "double(4)").unwrap();
    assert_eq!(state.text.value.as_deref(), Some("8"));
    assert_eq!(state.confidence, None, "a real state carries no confidence");
    assert_eq!(state.note, None);
}

#[test]
fn the_model_is_asked_for_only_when_the_code_cannot_run() {
    let asked = Arc::new(std::sync::atomic::AtomicUsize::new(0));
    let counter = asked.clone();
    let debugger = AutoDebugger::new(
        Arc::new(TracerDebugger::new(TracerConfig::default())),
        move || {
            counter.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
            Ok(Arc::new(Predicts42) as Arc<dyn Debugger>)
        },
    );
    step_return(&debugger, RUNS, "double(4)").unwrap();
    assert_eq!(asked.load(std::sync::atomic::Ordering::SeqCst), 0);
    let missing = format!("import ndb_no_such_module\n\n{RUNS}");
    step_return(&debugger, &missing, "double(4)").unwrap();
    assert!(asked.load(std::sync::atomic::Ordering::SeqCst) >= 1);
}

#[test]
fn a_missing_module_is_predicted_and_says_why() {
    let source = format!("import ndb_no_such_module\n\n{RUNS}");
    let state = step_return(&auto(TracerConfig::default()), &source, "double(4)").unwrap();
    assert_eq!(state.text.value.as_deref(), Some("42"));
    assert!(
        state.confidence.is_some(),
        "a predicted state carries a confidence"
    );
    let note = state.note.unwrap();
    assert!(
        note.starts_with("predicted, not run") && note.contains("ndb_no_such_module"),
        "{note}"
    );
}

#[test]
fn a_missing_name_in_the_entry_call_is_predicted() {
    let state = step_return(
        &auto(TracerConfig::default()),
        RUNS,
        "double(undefined_name)",
    )
    .unwrap();
    assert_eq!(state.text.value.as_deref(), Some("42"));
    let note = state.note.unwrap();
    assert!(note.contains("undefined_name"), "{note}");
}

#[test]
fn a_run_cut_off_by_a_limit_is_predicted_beyond_it() {
    let source = "def spin(n):\n    while n > 0:\n        n = n + 1\n    return n\n";
    let config = TracerConfig {
        max_events: 50,
        time_limit: Duration::from_secs(5),
        ..TracerConfig::default()
    };
    let state = step_return(&auto(config), source, "spin(1)").unwrap();
    assert_eq!(state.text.value.as_deref(), Some("42"));
    let note = state.note.unwrap();
    assert!(note.contains("cut off"), "{note}");
    // Where the run did get to, the states are real.
    let session = run_actions(
        &auto(TracerConfig {
            max_events: 50,
            ..TracerConfig::default()
        }),
        source,
        "spin(1)",
        &[Action::StepOver],
        &Cancel::new(),
    )
    .unwrap();
    assert!(matches!(
        session.current().view,
        Some(StateView::Event { line: 2, .. })
    ));
    assert_eq!(session.current().confidence, None);
}

#[test]
fn a_syntax_error_is_the_users_to_fix_not_predicted() {
    let error = step_return(&auto(TracerConfig::default()), "def f(:\n", "f()").unwrap_err();
    assert!(matches!(error, DebugError::Tracer(_)), "{error}");
}

#[test]
fn without_a_model_the_error_gives_both_reasons() {
    let debugger = AutoDebugger::new(
        Arc::new(TracerDebugger::new(TracerConfig::default())),
        || Err(ndb_inference::neural::ModelError::NotFound("no model file".into()).into()),
    );
    let source = format!("import ndb_no_such_module\n\n{RUNS}");
    let error = step_return(&debugger, &source, "double(4)").unwrap_err();
    let message = error.to_string();
    assert!(
        message.contains("ndb_no_such_module") && message.contains("no model file"),
        "{message}"
    );
}

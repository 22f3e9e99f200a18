//! Suggestions without running: the model checks candidates by predicting
//! what each returns, and those predicted to give the output rank first.
//! The plumbing is tested with a stand-in whose forward answers are the
//! real tracer's (so a check is exactly right) and whose one proposal for
//! the inverse question is wrong: the ranking must come from the checks.
//! The real model's checks are tested in `tests/model_cli.rs`.

use ndb_grammar::{Action, TextEvent, TextState};
use ndb_inference::debugger::{
    Cancel, Confidence, DebugError, Debugger, Session, Source, State, TracerDebugger,
};
use ndb_inference::suggest::{self, Origin, Request};
use ndb_inference::tracer::TracerConfig;

struct TracerForwardWrongInverse {
    tracer: TracerDebugger,
}

impl Debugger for TracerForwardWrongInverse {
    fn name(&self) -> String {
        "stand-in".into()
    }

    fn start(
        &self,
        source: &Source,
        entry_call: &str,
        cancel: &Cancel,
    ) -> Result<State, DebugError> {
        self.tracer.start(source, entry_call, cancel)
    }

    fn next(
        &self,
        session: &Session,
        action: Action,
        cancel: &Cancel,
    ) -> Result<State, DebugError> {
        if action == Action::InvStepCall {
            return Ok(State {
                text: TextState {
                    event: TextEvent::Call,
                    inverse: true,
                    src: "def shout(text):".into(),
                    locals: vec![("text".into(), "'zzz'".into())],
                    value: None,
                },
                view: None,
                confidence: Some(Confidence {
                    votes: 1,
                    samples: 1,
                    probability: Some(0.9),
                }),
                note: None,
            });
        }
        let mut state = self.tracer.next(session, action, cancel)?;
        state.confidence = Some(Confidence {
            votes: 1,
            samples: 1,
            probability: Some(0.8),
        });
        Ok(state)
    }
}

const SOURCE: &str = "def shout(text):\n    return text[::-1].upper()\n";

fn suggest_without_running(checks: usize) -> suggest::Report {
    let model = TracerForwardWrongInverse {
        tracer: TracerDebugger::new(TracerConfig::default()),
    };
    let mut request = Request::new("shout", Some("'OLLEH'"));
    request.samples = 1;
    request.checks = checks;
    request.budget.time = std::time::Duration::from_secs(60);
    suggest::suggest(Some(&model), None, SOURCE, &request, &Cancel::new()).unwrap()
}

#[test]
fn a_candidate_predicted_to_give_the_output_ranks_first() {
    let report = suggest_without_running(suggest::DEFAULT_CHECKS);
    assert_eq!(report.runs, 0, "nothing was run");
    let first = &report.suggestions[0];
    // The output reversed (the search's own candidate) is what the
    // forward answers say gives 'OLLEH'; lower case is another.
    let check = first.model_check.as_ref().expect("checked");
    assert!(check.gives_output, "{first:?}");
    assert_eq!(check.predicted.as_deref(), Some("'OLLEH'"));
    assert!(first.verified.is_none(), "a check is no run");
    assert_ne!(first.origin, Origin::Model);
    // The model's own proposal stays, checked, and predicted wrong.
    let proposal = report
        .suggestions
        .iter()
        .find(|s| s.origin == Origin::Model)
        .expect("the model's proposal is kept");
    assert_eq!(proposal.input, "'zzz'");
    let check = proposal.model_check.as_ref().expect("checked");
    assert!(!check.gives_output);
    assert_eq!(check.predicted.as_deref(), Some("'ZZZ'"));
    // Every suggestion that is not the model's was predicted to give it.
    for suggestion in &report.suggestions {
        if suggestion.origin != Origin::Model {
            assert!(suggestion.model_check.as_ref().unwrap().gives_output);
        }
    }
    assert!(
        report.notes.iter().any(|note| note.contains("not runs")),
        "{:?}",
        report.notes
    );
}

#[test]
fn without_checks_the_models_proposal_is_all_there_is() {
    let report = suggest_without_running(0);
    assert_eq!(report.suggestions.len(), 1);
    assert_eq!(report.suggestions[0].input, "'zzz'");
    assert_eq!(report.suggestions[0].model_check, None);
}

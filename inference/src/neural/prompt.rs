//! A session as the model reads it: the text language's trajectory up to
//! the next action, ending with `<|frame_sep|>` where the model writes the
//! next state.

use ndb_grammar::text::{prompt_prefix, text_action};
use ndb_grammar::Action;

use crate::debugger::Session;

/// Two real trajectories (recorded by the tracer from `demo/count_words.py`,
/// checked by a test) shown before the question to a model that was never
/// trained on the text language, so that it sees the format once forward
/// and once backward.
pub(crate) const DEMONSTRATION: &str = concat!(
    include_str!("demo/forward.txt"),
    "\n",
    include_str!("demo/inverse.txt"),
    "\n"
);

/// The prompt for `action` after `session`, leaving out the oldest `skip`
/// steps (the source and the first state are always kept), after the
/// demonstration when `demonstrate`.
pub(crate) fn prompt(session: &Session, action: Action, skip: usize, demonstrate: bool) -> String {
    let question = prompt_prefix(
        &session.trajectory(skip),
        &text_action(&session.source, action),
    );
    if demonstrate {
        format!("{DEMONSTRATION}{question}")
    } else {
        question
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::debugger::{run_actions, Cancel, State, Step, TracerDebugger};
    use crate::neural::decode::{vote, Sample};
    use ndb_grammar::text::delta_base;

    /// The demonstration is what the real tracer records, nothing made up.
    #[test]
    fn the_demonstration_is_a_real_recording() {
        let source = include_str!("demo/count_words.py");
        let tracer = TracerDebugger::new(Default::default());
        let call = "count_words('a b a', 'a')";
        let parts: Vec<&str> = DEMONSTRATION.split_inclusive("<|trace_end|>").collect();
        for (actions, recorded) in [
            (
                "step_over,step_over,step_over,step_over,step_return",
                parts[0],
            ),
            ("step_return,inv_step_call", parts[1]),
        ] {
            let actions = Action::parse_list(actions).unwrap();
            let session = run_actions(&tracer, source, call, &actions, &Cancel::new()).unwrap();
            assert_eq!(session.to_text(), recorded.trim_start_matches('\n'));
        }
    }

    /// A session of the model's own answers is asked as training printed
    /// the same run: each answer (the recorded state as the printer wrote
    /// it, source lines indented as in the file), read back by the vote and
    /// printed into the next prompt, is the recording's text again. (Read
    /// back trimmed, every prompt after the first step was a text the model
    /// had never seen, and it answered those far worse.)
    #[test]
    fn answers_read_back_are_asked_again_as_training_printed_them() {
        let source = include_str!("demo/count_words.py");
        let tracer = TracerDebugger::new(Default::default());
        let actions =
            Action::parse_list("step_over,step_over,step_over,step_into,step_return").unwrap();
        let call = "count_words('a b a', 'a')";
        let recorded = run_actions(&tracer, source, call, &actions, &Cancel::new()).unwrap();
        let printed = recorded.to_text();
        let mut session = Session {
            steps: Vec::new(),
            ..recorded.clone()
        };
        for step in &recorded.steps {
            let asked = prompt(&session, step.action, 0, false);
            assert!(printed.starts_with(&asked), "{asked}");
            let rest = &printed[asked.len()..];
            let answer = &rest[..rest.find("<|action_sep|>").unwrap_or(rest.len())];
            let answer = answer.trim_end_matches("<|trace_end|>");
            let sample = Sample {
                text: answer.to_string(),
                cut_off: false,
                tokens: 1,
                probability: None,
            };
            let (candidates, rejected) = vote(&[sample], delta_base(&session.current().text));
            assert!(rejected.is_empty(), "{answer}");
            session.steps.push(Step {
                action: step.action,
                state: State {
                    text: candidates[0].state.clone(),
                    ..step.state.clone()
                },
            });
        }
        assert!(printed.contains("<|src_sep|>    count = 0"), "{printed}");
        assert_eq!(session.to_text(), printed);
    }
}

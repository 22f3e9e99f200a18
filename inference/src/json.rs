//! The JSON shape of debugger states shared by every front end
//! (`ndb step`, `ndb trace`, the agent tools), and of suggested inputs:
//! `{"event", "line", "depth", "locals", "value", "status"}`.

use ndb_grammar::{Locals, StateView};
use serde_json::{json, Map, Value};

/// A state as one JSON object. `None` is the inverse exit before the entry
/// call: an `exit` with no status.
pub fn state_to_json(view: Option<&StateView>) -> Value {
    match view {
        Some(StateView::Event {
            kind,
            line,
            depth,
            locals,
            value,
        }) => json!({
            "event": kind.as_str(),
            "line": line,
            "depth": depth,
            "locals": locals.as_ref().map(locals_to_json),
            "value": value,
            "status": Value::Null,
        }),
        Some(StateView::Exit { status, value }) => json!({
            "event": "exit",
            "line": Value::Null,
            "depth": Value::Null,
            "locals": Value::Null,
            "value": value,
            "status": status.as_str(),
        }),
        None => json!({
            "event": "exit",
            "line": Value::Null,
            "depth": Value::Null,
            "locals": Value::Null,
            "value": Value::Null,
            "status": Value::Null,
        }),
    }
}

/// A state from any [`crate::debugger::Debugger`]: the shape of
/// [`state_to_json`] plus `"confidence"` ([`crate::debugger::Confidence::value`]:
/// the answer's probability at k = 1, combined with the samples' agreement
/// at k > 1) and `"verdict"` (`"likely"` or `"guess"`); both `null` for the
/// real tracer and for computed states; `"note"` when something about how
/// the state was obtained should be known (the `auto` engine predicted it
/// because the code could not run; steps left out of the prompt).
pub fn predicted_state_to_json(state: &crate::debugger::State) -> Value {
    let mut object = state_to_json(state.view.as_ref());
    object["confidence"] = match state.confidence {
        Some(confidence) => json!((confidence.value() * 1000.0).round() / 1000.0),
        None => Value::Null,
    };
    object["verdict"] = match state.confidence {
        Some(confidence) => json!(confidence.verdict().as_str()),
        None => Value::Null,
    };
    if let Some(note) = &state.note {
        object["note"] = json!(note);
    }
    object
}

/// Locals as a JSON object, keeping their order.
pub fn locals_to_json(locals: &Locals) -> Value {
    let mut map = Map::new();
    for (name, value) in locals {
        map.insert(name.clone(), Value::String(value.clone()));
    }
    Value::Object(map)
}

/// A suggested input as one JSON object, as `ndb suggest-inputs` prints
/// it: `{"input", "entry_call", "origin", "from", "votes", "samples",
/// "output", "verified", "actual", "predicted"}`. `origin` is a word
/// ([`crate::suggest::Origin::kind`]), `from` says it for people, `actual`
/// is what a run really gave when it did not confirm.
pub fn suggestion_to_json(function: &str, suggestion: &crate::suggest::Suggestion) -> Value {
    json!({
        "input": suggestion.input,
        "entry_call": crate::ops::entry_call(function, &suggestion.input),
        "origin": suggestion.origin.kind(),
        "from": suggestion.origin.describe(),
        "votes": suggestion.votes,
        "samples": suggestion.samples,
        "output": suggestion.output,
        "verified": suggestion.verified,
        "actual": suggestion.actual,
        "predicted": suggestion.model_check.as_ref().map(model_check_to_json),
    })
}

/// The model's check of a suggestion made without running
/// ([`crate::suggest::ModelCheck`]): `{"value", "raised", "gives_output",
/// "confidence", "verdict"}`, a prediction of what the input returns.
pub fn model_check_to_json(check: &crate::suggest::ModelCheck) -> Value {
    json!({
        "value": check.predicted,
        "raised": check.raised,
        "gives_output": check.gives_output,
        "confidence": check.shown_confidence(),
        "verdict": check.verdict(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use ndb_grammar::{EventKind, ExitStatus};

    #[test]
    fn renders_every_kind_of_state() {
        let line = StateView::Event {
            kind: EventKind::Line,
            line: 3,
            depth: 0,
            locals: Some(vec![("x".into(), "5".into()), ("acc".into(), "[]".into())]),
            value: None,
        };
        assert_eq!(
            state_to_json(Some(&line)).to_string(),
            r#"{"event":"line","line":3,"depth":0,"locals":{"x":"5","acc":"[]"},"value":null,"status":null}"#
        );
        let exit = StateView::Exit {
            status: ExitStatus::Error,
            value: Some("ValueError('x')".into()),
        };
        assert_eq!(
            state_to_json(Some(&exit)).to_string(),
            r#"{"event":"exit","line":null,"depth":null,"locals":null,"value":"ValueError('x')","status":"error"}"#
        );
        assert_eq!(state_to_json(None)["status"], Value::Null);
    }
}

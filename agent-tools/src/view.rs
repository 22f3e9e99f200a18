//! Debugger states as an agent can afford to read them: by default only the
//! variables that changed since the previous state of the same frame, at most
//! a dozen of them, each value cut to a bounded length, and an explicit note
//! of what was left out and how to ask for it (`names=[...]`).

use ndb_grammar::{Locals, StateView, TextEvent};
use ndb_inference::debugger::State;
use serde_json::{Map, Value};

use crate::output::StateOut;

/// Variables shown by default (changed ones, or all in a new frame).
pub const DEFAULT_MAX_VARIABLES: usize = 12;
/// Variables shown when every one is asked for.
pub const ALL_MAX_VARIABLES: usize = 50;
/// Characters of one value shown by default.
pub const MAX_VALUE_CHARS: usize = 120;
/// Characters of one value shown when it is asked for by name.
pub const MAX_NAMED_VALUE_CHARS: usize = 2_000;
/// Names listed as unchanged or as omitted.
const MAX_LISTED_NAMES: usize = 30;

/// Which variables to show.
#[derive(Clone, Copy, Debug, Default)]
pub struct LocalsRequest<'a> {
    /// Exactly these, with long values.
    pub names: Option<&'a [String]>,
    /// All of them, not only the changed ones.
    pub all: bool,
}

fn event_name(event: TextEvent) -> &'static str {
    match event {
        TextEvent::Call => "call",
        TextEvent::Line | TextEvent::LineCall => "line",
        TextEvent::Return => "return",
        TextEvent::Exception => "exception",
        TextEvent::ExitNormal
        | TextEvent::ExitError
        | TextEvent::ExitNever
        | TextEvent::ExitEntry => "exit",
    }
}

/// The locals of a stop that has them (call and line), with its depth.
fn frame_locals(state: &State) -> Option<(Option<u32>, &Locals)> {
    match &state.view {
        Some(StateView::Event {
            depth,
            locals: Some(locals),
            ..
        }) => Some((Some(*depth), locals)),
        Some(_) => None,
        None => matches!(
            state.text.event,
            TextEvent::Call | TextEvent::Line | TextEvent::LineCall
        )
        .then_some((None, &state.text.locals)),
    }
}

/// `value` cut to `limit` characters with a `...<+N chars>` marker.
pub fn bound_value(value: &str, limit: usize) -> (String, bool) {
    let count = value.chars().count();
    if count <= limit {
        return (value.to_string(), false);
    }
    let kept: String = value.chars().take(limit).collect();
    (format!("{kept}...<+{} chars>", count - limit), true)
}

fn list_names(names: &[&str]) -> String {
    let mut listed: Vec<&str> = names.iter().copied().take(MAX_LISTED_NAMES).collect();
    if names.len() > MAX_LISTED_NAMES {
        listed.push("...");
    }
    listed.join(", ")
}

/// The state as an agent sees it. `previous` is the state before it in the
/// same session (for the changed-only form).
pub fn state_out(
    state: &State,
    previous: Option<&State>,
    source: &str,
    request: LocalsRequest,
) -> StateOut {
    let (event, line, depth, value, status) = match &state.view {
        Some(StateView::Event {
            kind,
            line,
            depth,
            value,
            ..
        }) => (
            kind.as_str().to_string(),
            Some(*line),
            Some(*depth),
            value.clone(),
            None,
        ),
        Some(StateView::Exit { status, value }) => (
            "exit".to_string(),
            None,
            None,
            value.clone(),
            Some(status.as_str().to_string()),
        ),
        None => (
            event_name(state.text.event).to_string(),
            None,
            None,
            state.text.value.clone(),
            None,
        ),
    };
    let source_line = if !state.text.src.is_empty() {
        Some(state.text.src.clone())
    } else {
        line.map(|line| ndb_grammar::state::source_line(source, line).to_string())
    };
    let mut out = StateOut {
        event,
        line,
        depth,
        source_line,
        locals: None,
        locals_shown: None,
        unchanged: Vec::new(),
        omitted: None,
        value: value.map(|v| bound_value(&v, MAX_NAMED_VALUE_CHARS).0),
        status,
        confidence: state
            .confidence
            .map(|c| (c.value() * 1000.0).round() / 1000.0),
        verdict: state.confidence.map(|c| c.verdict().as_str().to_string()),
        votes: state.confidence.map(|c| c.votes as u32),
        samples: state.confidence.map(|c| c.samples as u32),
        note: state.note.clone(),
    };
    if let Some((depth, locals)) = frame_locals(state) {
        fill_locals(&mut out, depth, locals, state, previous, request);
    }
    out
}

fn fill_locals(
    out: &mut StateOut,
    depth: Option<u32>,
    locals: &Locals,
    state: &State,
    previous: Option<&State>,
    request: LocalsRequest,
) {
    let mut shown = Map::new();
    let mut notes: Vec<String> = Vec::new();
    if let Some(names) = request.names {
        let mut missing = Vec::new();
        let mut cut = false;
        for name in names {
            match locals.iter().find(|(known, _)| known == name) {
                Some((_, value)) => {
                    let (value, was_cut) = bound_value(value, MAX_NAMED_VALUE_CHARS);
                    cut |= was_cut;
                    shown.insert(name.clone(), Value::String(value));
                }
                None => missing.push(name.as_str()),
            }
        }
        if !missing.is_empty() {
            let defined: Vec<&str> = locals.iter().map(|(name, _)| name.as_str()).collect();
            notes.push(format!(
                "not defined here: {}; defined: {}",
                list_names(&missing),
                list_names(&defined)
            ));
        }
        if cut {
            notes.push(format!(
                "values longer than {MAX_NAMED_VALUE_CHARS} characters are cut"
            ));
        }
        out.locals_shown = Some("names".into());
        out.locals = Some(shown);
        out.omitted = (!notes.is_empty()).then(|| notes.join("; "));
        return;
    }
    // The changed-only form needs the previous stop of the same frame: a line
    // after a call or line at the same depth.
    let base = previous
        .filter(|_| !request.all && state.text.event != TextEvent::Call)
        .and_then(frame_locals)
        .filter(|(previous_depth, _)| *previous_depth == depth)
        .map(|(_, locals)| locals);
    let candidates: Vec<&(String, String)> = match base {
        Some(base) => {
            let mut changed = Vec::new();
            for entry in locals {
                let same = base.iter().any(|old| old == entry);
                if same {
                    out.unchanged.push(entry.0.clone());
                } else {
                    changed.push(entry);
                }
            }
            out.locals_shown = Some("changed".into());
            changed
        }
        None => {
            out.locals_shown = Some("all".into());
            locals.iter().collect()
        }
    };
    if out.unchanged.len() > MAX_LISTED_NAMES {
        out.unchanged.truncate(MAX_LISTED_NAMES);
        out.unchanged.push("...".into());
    }
    let limit = if request.all {
        ALL_MAX_VARIABLES
    } else {
        DEFAULT_MAX_VARIABLES
    };
    let mut cut_names = Vec::new();
    for (name, value) in candidates.iter().take(limit) {
        let (value, was_cut) = bound_value(value, MAX_VALUE_CHARS);
        if was_cut {
            cut_names.push(name.as_str());
        }
        shown.insert(name.clone(), Value::String(value));
    }
    if candidates.len() > limit {
        let rest: Vec<&str> = candidates[limit..]
            .iter()
            .map(|(n, _)| n.as_str())
            .collect();
        notes.push(format!(
            "{} more omitted, ask for names=[{}]",
            rest.len(),
            list_names(&rest)
        ));
    }
    if !cut_names.is_empty() {
        notes.push(format!(
            "values cut to {MAX_VALUE_CHARS} characters, ask for names=[{}] to see more",
            list_names(&cut_names)
        ));
    }
    out.locals = Some(shown);
    out.omitted = (!notes.is_empty()).then(|| notes.join("; "));
}

#[cfg(test)]
mod tests {
    use super::*;
    use ndb_grammar::{EventKind, TextState};
    use ndb_inference::debugger::Confidence;

    fn line_state(line: u32, locals: Locals) -> State {
        State {
            text: TextState {
                event: TextEvent::Line,
                inverse: false,
                src: String::new(),
                locals: locals.clone(),
                value: None,
            },
            view: Some(StateView::Event {
                kind: EventKind::Line,
                line,
                depth: 0,
                locals: Some(locals),
                value: None,
            }),
            confidence: Some(Confidence {
                votes: 2,
                samples: 3,
                probability: None,
            }),
            note: None,
        }
    }

    fn many(count: usize, changed_from: usize) -> Locals {
        (0..count)
            .map(|i| {
                let value = if i >= changed_from { i * 10 } else { i };
                (format!("v{i}"), value.to_string())
            })
            .collect()
    }

    #[test]
    fn bounds_what_an_agent_reads() {
        let source = "def f():\n    pass\n";
        let before = line_state(1, many(20, 99));
        let mut after_locals = many(20, 3);
        after_locals.push(("long".into(), "x".repeat(300)));
        let after = line_state(2, after_locals);
        let names = ["long".to_string(), "v1".to_string(), "gone".to_string()];
        let mut out = String::new();
        for (label, previous, request) in [
            (
                "first state: all, at most 12",
                None,
                LocalsRequest::default(),
            ),
            (
                "a step: only the changed ones",
                Some(&before),
                LocalsRequest::default(),
            ),
            (
                "all_locals",
                Some(&before),
                LocalsRequest {
                    names: None,
                    all: true,
                },
            ),
            (
                "names",
                Some(&before),
                LocalsRequest {
                    names: Some(&names),
                    all: false,
                },
            ),
        ] {
            let state = state_out(&after, previous, source, request);
            let locals = state.locals.as_ref().map_or(0, |l| l.len());
            out.push_str(&format!(
                "{label}: shown={} {locals} variables, unchanged={:?}\n  omitted: {}\n  confidence {:?} ({:?}/{:?})\n",
                state.locals_shown.as_deref().unwrap_or("-"),
                state.unchanged,
                state.omitted.as_deref().unwrap_or("-"),
                state.confidence,
                state.votes,
                state.samples,
            ));
        }
        insta::assert_snapshot!(out);
    }

    #[test]
    fn cuts_long_values_on_character_boundaries() {
        assert_eq!(bound_value("héllo", 10), ("héllo".to_string(), false));
        assert_eq!(
            bound_value("ééééé", 2),
            ("éé...<+3 chars>".to_string(), true)
        );
    }
}

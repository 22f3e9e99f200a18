//! The printer: trajectories, their pieces, states and actions, exactly
//! as the module documentation lays them out.

use super::*;
use crate::state::Locals;
use crate::trajectory::{TextAction, TextState, TextTrajectory};

// ---------------------------------------------------------------------------
// Printer.

/// `action` as the text language writes it: breakpoints by the target
/// line's text in `source` ([`breakpoint_action`]).
pub fn text_action(source: &crate::Source, action: crate::Action) -> TextAction {
    use crate::Action;
    match action {
        Action::StepInto => TextAction::StepInto,
        Action::StepOver => TextAction::StepOver,
        Action::StepReturn => TextAction::StepReturn,
        Action::Breakpoint(line) => breakpoint_action(source, line),
        Action::Continue => TextAction::Continue,
        Action::InvStepInto => TextAction::InvStepInto,
        Action::InvStepOver => TextAction::InvStepOver,
        Action::InvStepCall => TextAction::InvStepCall,
    }
}

/// Prints a whole trajectory in the layout of the module docs.
pub fn print_trajectory(t: &TextTrajectory) -> String {
    let mut out = print_body(t);
    if t.ended {
        out.push_str(TRACE_END);
    }
    out
}

/// The text a model completes with the state that `next_action` leads to:
/// the trajectory without `<|trace_end|>`, then
/// `<|action_sep|>ACTION\n<|frame_sep|>`, exactly as [`print_trajectory`]
/// would print the trajectory extended by that step.
pub fn prompt_prefix(t: &TextTrajectory, next_action: &TextAction) -> String {
    let mut out = print_body(t);
    write_action_and_frame(&mut out, next_action);
    out
}

/// One piece of a printed trajectory: either context the model reads (the
/// source, the first state, actions and separators) or the state that step
/// `step` reached, which a model must write.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TrajectoryPiece {
    pub text: String,
    /// The index into `TextTrajectory::steps` whose state this is, or
    /// `None` for context.
    pub step: Option<usize>,
}

/// [`print_trajectory`] cut into pieces: concatenated they are exactly its
/// text, and every step's state is a piece of its own (training puts its
/// loss on those). Context pieces end with `<|frame_sep|>`; state pieces
/// start with the state's event token.
pub fn print_trajectory_pieces(t: &TextTrajectory) -> Vec<TrajectoryPiece> {
    pieces(t, t.ended)
}

/// The trajectory's text without `<|trace_end|>`.
pub(super) fn print_body(t: &TextTrajectory) -> String {
    pieces(t, false)
        .into_iter()
        .map(|piece| piece.text)
        .collect()
}

pub(super) fn pieces(t: &TextTrajectory, with_end: bool) -> Vec<TrajectoryPiece> {
    let mut pieces = Vec::with_capacity(2 * t.steps.len() + 2);
    let mut context = String::new();
    context.push_str(TRACE_CONTEXT_START);
    context.push_str(&t.source);
    context.push('\n');
    context.push_str(FRAME_SEP);
    write_state(&mut context, &t.start, None);
    let mut previous = &t.start;
    for (index, step) in t.steps.iter().enumerate() {
        write_action_and_frame(&mut context, &step.action);
        pieces.push(TrajectoryPiece {
            text: std::mem::take(&mut context),
            step: None,
        });
        let base =
            (step.delta && delta_possible(previous, &step.state)).then_some(&previous.locals);
        let mut state = String::new();
        write_state(&mut state, &step.state, base);
        pieces.push(TrajectoryPiece {
            text: state,
            step: Some(index),
        });
        previous = &step.state;
    }
    if with_end {
        context.push_str(TRACE_END);
    }
    if !context.is_empty() {
        pieces.push(TrajectoryPiece {
            text: context,
            step: None,
        });
    }
    pieces
}

pub(super) fn write_action_and_frame(out: &mut String, action: &TextAction) {
    out.push_str(ACTION_SEP);
    write_action(out, action);
    out.push('\n');
    out.push_str(FRAME_SEP);
}

/// Prints one state, without the `<|frame_sep|>` before it. With a
/// `delta_base`, locals are written as a delta against it when
/// that is exact (see [`delta_possible`]), else in full.
pub fn print_state(state: &TextState, delta_base: Option<&Locals>) -> String {
    let mut out = String::new();
    write_state(&mut out, state, delta_base);
    out
}

pub(super) fn write_state(out: &mut String, state: &TextState, delta_base: Option<&Locals>) {
    let shape = Shape::of(state.event, state.inverse);
    out.push_str(shape.token);
    let Some(payload) = shape.payload else {
        return;
    };
    let write_payload = |out: &mut String| {
        out.push_str(ARG_SEP);
        match payload {
            Payload::Locals => write_locals(out, &state.locals, delta_base),
            Payload::Value => write_json_string(out, state.value.as_deref().unwrap_or("")),
        }
    };
    if shape.src_first {
        out.push_str(SRC_SEP);
        out.push_str(&state.src);
        write_payload(out);
    } else {
        write_payload(out);
        out.push_str(SRC_SEP);
        out.push_str(&state.src);
    }
}

pub(super) fn write_locals(out: &mut String, locals: &Locals, delta_base: Option<&Locals>) {
    out.push('{');
    let mut first = true;
    let mut pair = |out: &mut String, name: &str, value: &str| {
        if !first {
            out.push_str(", ");
        }
        first = false;
        write_json_string(out, name);
        out.push_str(": ");
        write_json_string(out, value);
    };
    match delta_base.filter(|base| locals_delta_possible(base, locals)) {
        Some(base) => {
            pair(out, DELTA_MARKER, DELTA_MARKER);
            for (index, (name, value)) in locals.iter().enumerate() {
                if base.get(index).is_none_or(|(_, old)| old != value) {
                    pair(out, name, value);
                }
            }
        }
        None => {
            for (name, value) in locals {
                pair(out, name, value);
            }
        }
    }
    out.push('}');
}

/// Writes `text` as a JSON string (see the module docs for the escapes).
pub(super) fn write_json_string(out: &mut String, text: &str) {
    out.push('"');
    let mut after_less_than = false;
    for c in text.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            '|' if after_less_than => out.push_str("\\u007c"),
            c if (c as u32) < 0x20 => out.push_str(&format!("\\u{:04x}", c as u32)),
            c => out.push(c),
        }
        after_less_than = c == '<';
    }
    out.push('"');
}

/// Prints one action, without the `<|action_sep|>` before it.
pub fn print_action(action: &TextAction) -> String {
    let mut out = String::new();
    write_action(&mut out, action);
    out
}

pub(super) fn write_action(out: &mut String, action: &TextAction) {
    let token = match action {
        TextAction::StepInto => STEP_INTO,
        TextAction::StepOver => STEP_OVER,
        TextAction::StepReturn => STEP_RETURN,
        TextAction::Continue => CONTINUE,
        TextAction::InvStepInto => INV_STEP_INTO,
        TextAction::InvStepOver => INV_STEP_OVER,
        TextAction::InvStepCall => INV_STEP_CALL,
        TextAction::Breakpoint { src, occurrence } => {
            out.push_str(BREAKPOINT);
            out.push_str(src);
            if let Some(k) = occurrence {
                out.push_str(ARG_SEP);
                out.push_str(&k.to_string());
            }
            return;
        }
    };
    out.push_str(token);
}

pub(super) fn action_of_token(token: &str) -> Option<TextAction> {
    Some(match token {
        STEP_INTO => TextAction::StepInto,
        STEP_OVER => TextAction::StepOver,
        STEP_RETURN => TextAction::StepReturn,
        CONTINUE => TextAction::Continue,
        INV_STEP_INTO => TextAction::InvStepInto,
        INV_STEP_OVER => TextAction::InvStepOver,
        INV_STEP_CALL => TextAction::InvStepCall,
        BREAKPOINT => TextAction::Breakpoint {
            src: String::new(),
            occurrence: None,
        },
        _ => return None,
    })
}

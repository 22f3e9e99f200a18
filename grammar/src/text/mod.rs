//! The text language the model reads and writes: its special tokens, the
//! printer of trajectories, states and actions, and a parser that never
//! panics and returns what it could read plus errors.
//!
//! # Layout
//!
//! ```text
//! <|trace_context_start|>SOURCE
//! <|frame_sep|>STATE<|action_sep|>ACTION
//! <|frame_sep|>STATE<|action_sep|>ACTION
//! <|frame_sep|>STATE<|trace_end|>
//! ```
//!
//! The printer writes exactly this: one newline after the source and after
//! each action, nothing between the parts of a state, and no newline after
//! `<|trace_end|>` (it would be a wasted token). The parser ignores whitespace
//! between parts. The source runs up to the first `<|frame_sep|>` and is kept
//! byte-exact, except for the one trailing newline the printer adds.
//!
//! # States
//!
//! ```text
//! <|call_sep|><|src_sep|>def f(x):<|arg_sep|>{"x": "5"}
//! <|line_sep|><|arg_sep|>{"..": "..", "n": "0"}<|src_sep|>    n += x
//! <|return_sep|><|src_sep|>    return n<|arg_sep|>"5"
//! <|exception_sep|><|src_sep|>    x = 1 / 0<|arg_sep|>"ZeroDivisionError('division by zero')"
//! <|exit_normal|>   <|exit_error|>   <|exit_never|>
//! ```
//!
//! Inverse states put the source first in every kind:
//! `<|inv_call_sep|>`, `<|inv_line_sep|>`, `<|inv_line_call_sep|>` carry
//! `<|src_sep|>SRC<|arg_sep|>{locals}`; `<|inv_return_sep|>` and
//! `<|inv_exception_sep|>` carry `<|src_sep|>SRC<|arg_sep|>"value"`; the
//! inverse exit is `<|inv_exit_entry|>`.
//!
//! A [`TextState`] whose fields do not fit its event prints as its closest
//! valid form, which is what [`normalize_state`] computes and what the parser
//! gives back: `LineCall` and `ExitEntry` always print with their inverse
//! spelling and the forward exits always with their forward one (so `inverse`
//! is corrected); call, line and line-call states ignore `value`; return and
//! exception states ignore `locals` and print a missing value as `""`; exits
//! ignore `src`, `locals` and `value`.
//!
//! # Locals and values
//!
//! Locals are a JSON object of JSON strings holding `repr()` text, printed as
//! `{"x": "5", "acc": "[1, 2]"}`. Strings escape `"`, `\`, `\n`, `\r`, `\t`
//! and other control characters as `\uXXXX`; other characters, non-ASCII
//! included, are written as they are. One more escape keeps a value from
//! ever containing the text of a special token: a `|` that follows `<` is
//! written `\u007c`. Names must be unique (a Python frame's are); the parser
//! reports a repeated name as an error. A variable named `..` cannot exist in
//! Python and would be read as the delta marker.
//!
//! # Delta locals
//!
//! When [`TextStep::delta`] is set, the state's locals are written as the
//! entry `"..": ".."` followed by the names whose value differs from the
//! previous state's, or that the previous state did not have. The parser
//! applies such an object on top of the previous state's full locals: the
//! previous names in their order with updated values, then the new names in
//! their order. A delta cannot express a removed name or a changed order, and
//! needs a previous state that has locals (call, line or line-call), so
//! [`delta_possible`] says whether it is exact; when it is not, the printer
//! writes the full object and the parsed step has `delta == false`.
//!
//! # Actions
//!
//! `<|step_into|>`, `<|step_over|>`, `<|step_return|>`, `<|continue|>`,
//! `<|inv_step_into|>`, `<|inv_step_over|>`, `<|inv_step_call|>`, and
//! `<|breakpoint|>SRC` where `SRC` is the target line's text, followed by
//! `<|arg_sep|>K` when that text (trimmed) is on more than one line of the
//! source: `K` is the 1-based occurrence in file order among those lines.
//! [`breakpoint_action`] builds the action for a line number (with the
//! trimmed text) and [`resolve_breakpoint`] maps it back.
//!
//! # Source text of states
//!
//! The printer writes a state's `src` as given, indentation included,
//! because the model sees source lines as they are in the file. The parser
//! gives it back as written, indentation and trailing spaces included (only
//! a line break before or after it is layout), so that a parsed trajectory, or a
//! model's answer, printed again into a prompt is the text the model was
//! trained on: a prompt with the indentation stripped from earlier states is
//! a different text, and the trained model answers it far worse.
//! Comparisons use [`normalize_src`] (trimmed), under which round trips hold
//! ([`normalize_trajectory`]). A breakpoint's text is written and parsed
//! trimmed. A `src` must be one line: the parser reports source text
//! containing a line break.
//!
//! # What the text cannot carry
//!
//! A source file, or a source line, containing the exact text of a special
//! token (such as `"<|frame_sep|>"` in a string literal) cannot be written
//! unambiguously; the model's tokenizer would read it as the token too.
//! [`contains_special_token`] lets a data pipeline skip such programs.
//!
//! # Parsing
//!
//! [`parse_trajectory`] never panics, returns everything it could read and
//! one error per broken part, and resynchronises at the next `<|frame_sep|>`.
//! A state that fails to parse is dropped (with the step it belongs to), and
//! a delta state right after it is an error too: its base is unknown and
//! locals are never guessed. [`parse_state`] reads one state as the model
//! writes it after a `<|frame_sep|>`.

mod json;
mod parse;
mod print;
#[cfg(test)]
mod tests;

use json::*;
pub use parse::{parse_state, parse_trajectory};
use print::*;
pub use print::{
    print_action, print_state, print_trajectory, print_trajectory_pieces, prompt_prefix,
    text_action, TrajectoryPiece,
};

use crate::source::Source;
use crate::state::Locals;
use crate::trajectory::{TextAction, TextEvent, TextState, TextStep, TextTrajectory};

pub const TRACE_CONTEXT_START: &str = "<|trace_context_start|>";
pub const FRAME_SEP: &str = "<|frame_sep|>";
pub const ACTION_SEP: &str = "<|action_sep|>";
pub const SRC_SEP: &str = "<|src_sep|>";
pub const ARG_SEP: &str = "<|arg_sep|>";
pub const TRACE_END: &str = "<|trace_end|>";
pub const CALL_SEP: &str = "<|call_sep|>";
pub const LINE_SEP: &str = "<|line_sep|>";
pub const RETURN_SEP: &str = "<|return_sep|>";
pub const EXCEPTION_SEP: &str = "<|exception_sep|>";
pub const INV_CALL_SEP: &str = "<|inv_call_sep|>";
pub const INV_LINE_SEP: &str = "<|inv_line_sep|>";
pub const INV_LINE_CALL_SEP: &str = "<|inv_line_call_sep|>";
pub const INV_RETURN_SEP: &str = "<|inv_return_sep|>";
pub const INV_EXCEPTION_SEP: &str = "<|inv_exception_sep|>";
pub const EXIT_NORMAL: &str = "<|exit_normal|>";
pub const EXIT_ERROR: &str = "<|exit_error|>";
pub const EXIT_NEVER: &str = "<|exit_never|>";
pub const INV_EXIT_ENTRY: &str = "<|inv_exit_entry|>";
pub const STEP_INTO: &str = "<|step_into|>";
pub const STEP_OVER: &str = "<|step_over|>";
pub const STEP_RETURN: &str = "<|step_return|>";
pub const BREAKPOINT: &str = "<|breakpoint|>";
pub const CONTINUE: &str = "<|continue|>";
pub const INV_STEP_INTO: &str = "<|inv_step_into|>";
pub const INV_STEP_OVER: &str = "<|inv_step_over|>";
pub const INV_STEP_CALL: &str = "<|inv_step_call|>";

/// Every special token of the language, each one token in the model's
/// tokenizer: layout, forward events, inverse events, exits, actions.
pub const SPECIAL_TOKENS: &[&str] = &[
    TRACE_CONTEXT_START,
    FRAME_SEP,
    ACTION_SEP,
    SRC_SEP,
    ARG_SEP,
    TRACE_END,
    CALL_SEP,
    LINE_SEP,
    RETURN_SEP,
    EXCEPTION_SEP,
    INV_CALL_SEP,
    INV_LINE_SEP,
    INV_LINE_CALL_SEP,
    INV_RETURN_SEP,
    INV_EXCEPTION_SEP,
    EXIT_NORMAL,
    EXIT_ERROR,
    EXIT_NEVER,
    INV_EXIT_ENTRY,
    STEP_INTO,
    STEP_OVER,
    STEP_RETURN,
    BREAKPOINT,
    CONTINUE,
    INV_STEP_INTO,
    INV_STEP_OVER,
    INV_STEP_CALL,
];

/// The key and value of the one entry that marks a delta locals object.
const DELTA_MARKER: &str = "..";

/// A problem found while parsing, at a byte offset of the parsed text.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("at byte {offset}: {message}")]
pub struct ParseError {
    pub offset: usize,
    pub message: String,
}

impl ParseError {
    fn new(offset: usize, message: impl Into<String>) -> ParseError {
        ParseError {
            offset,
            message: message.into(),
        }
    }
}

/// Whether `text` contains the exact text of a special token, which the text
/// language (and the model's tokenizer) cannot tell from the token itself.
pub fn contains_special_token(text: &str) -> bool {
    SPECIAL_TOKENS.iter().any(|token| text.contains(token))
}

// ---------------------------------------------------------------------------
// Shapes: how each (event, inverse) pair is written.

/// What follows the event token of a state.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Payload {
    Locals,
    Value,
}

/// The printed form of a state kind.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Shape {
    token: &'static str,
    event: TextEvent,
    inverse: bool,
    /// `None` for exits, which carry nothing after their token.
    payload: Option<Payload>,
    /// The source comes before the payload (all kinds but forward line).
    src_first: bool,
}

const SHAPES: &[Shape] = &[
    Shape::fields(CALL_SEP, TextEvent::Call, false, Payload::Locals, true),
    Shape::fields(LINE_SEP, TextEvent::Line, false, Payload::Locals, false),
    Shape::fields(RETURN_SEP, TextEvent::Return, false, Payload::Value, true),
    Shape::fields(
        EXCEPTION_SEP,
        TextEvent::Exception,
        false,
        Payload::Value,
        true,
    ),
    Shape::fields(INV_CALL_SEP, TextEvent::Call, true, Payload::Locals, true),
    Shape::fields(INV_LINE_SEP, TextEvent::Line, true, Payload::Locals, true),
    Shape::fields(
        INV_LINE_CALL_SEP,
        TextEvent::LineCall,
        true,
        Payload::Locals,
        true,
    ),
    Shape::fields(
        INV_RETURN_SEP,
        TextEvent::Return,
        true,
        Payload::Value,
        true,
    ),
    Shape::fields(
        INV_EXCEPTION_SEP,
        TextEvent::Exception,
        true,
        Payload::Value,
        true,
    ),
    Shape::exit(EXIT_NORMAL, TextEvent::ExitNormal, false),
    Shape::exit(EXIT_ERROR, TextEvent::ExitError, false),
    Shape::exit(EXIT_NEVER, TextEvent::ExitNever, false),
    Shape::exit(INV_EXIT_ENTRY, TextEvent::ExitEntry, true),
];

impl Shape {
    const fn fields(
        token: &'static str,
        event: TextEvent,
        inverse: bool,
        payload: Payload,
        src_first: bool,
    ) -> Shape {
        Shape {
            token,
            event,
            inverse,
            payload: Some(payload),
            src_first,
        }
    }

    const fn exit(token: &'static str, event: TextEvent, inverse: bool) -> Shape {
        Shape {
            token,
            event,
            inverse,
            payload: None,
            src_first: false,
        }
    }

    /// The shape a state prints with: its own when the combination exists,
    /// else the one spelling its event has.
    fn of(event: TextEvent, inverse: bool) -> Shape {
        SHAPES
            .iter()
            .find(|shape| shape.event == event && shape.inverse == inverse)
            .or_else(|| SHAPES.iter().find(|shape| shape.event == event))
            .copied()
            .expect("every event has a shape")
    }

    fn of_token(token: &str) -> Option<Shape> {
        SHAPES.iter().find(|shape| shape.token == token).copied()
    }
}

fn has_locals(state: &TextState) -> bool {
    Shape::of(state.event, state.inverse).payload == Some(Payload::Locals)
}

/// The locals a delta state written after `state` applies to: its own when
/// it carries locals (a call, line or line-call state), else none.
pub fn delta_base(state: &TextState) -> Option<&Locals> {
    has_locals(state).then_some(&state.locals)
}

// ---------------------------------------------------------------------------
// Normal forms.

/// The source text of a state or breakpoint as the parser returns it:
/// trimmed of surrounding whitespace.
pub fn normalize_src(src: &str) -> String {
    src.trim().to_string()
}

/// The state as printing and parsing it gives it back: its closest valid form
/// (see the module docs) with `src` normalized.
pub fn normalize_state(state: &TextState) -> TextState {
    let shape = Shape::of(state.event, state.inverse);
    let (src, locals, value) = match shape.payload {
        None => (String::new(), Locals::new(), None),
        Some(Payload::Locals) => (normalize_src(&state.src), state.locals.clone(), None),
        Some(Payload::Value) => (
            normalize_src(&state.src),
            Locals::new(),
            Some(state.value.clone().unwrap_or_default()),
        ),
    };
    TextState {
        event: shape.event,
        inverse: shape.inverse,
        src,
        locals,
        value,
    }
}

/// The action as printing and parsing it gives it back.
pub fn normalize_action(action: &TextAction) -> TextAction {
    match action {
        TextAction::Breakpoint { src, occurrence } => TextAction::Breakpoint {
            src: normalize_src(src),
            occurrence: *occurrence,
        },
        other => other.clone(),
    }
}

/// The trajectory as printing and parsing it gives it back: states and
/// actions normalized, and `delta` kept only where [`delta_possible`].
pub fn normalize_trajectory(t: &TextTrajectory) -> TextTrajectory {
    let mut previous = &t.start;
    let steps = t
        .steps
        .iter()
        .map(|step| {
            let delta = step.delta && delta_possible(previous, &step.state);
            previous = &step.state;
            TextStep {
                action: normalize_action(&step.action),
                state: normalize_state(&step.state),
                delta,
            }
        })
        .collect();
    TextTrajectory {
        source: t.source.clone(),
        start: normalize_state(&t.start),
        steps,
        ended: t.ended,
    }
}

// ---------------------------------------------------------------------------
// Deltas.

/// Whether `next`'s locals can be written exactly as a delta of `prev`'s:
/// both states carry locals, `next` keeps all of `prev`'s names in the same
/// order (new names after them), and `next`'s names are unique and not the
/// delta marker.
pub fn delta_possible(prev: &TextState, next: &TextState) -> bool {
    has_locals(prev) && has_locals(next) && locals_delta_possible(&prev.locals, &next.locals)
}

fn locals_delta_possible(base: &Locals, next: &Locals) -> bool {
    next.len() >= base.len()
        && base
            .iter()
            .zip(next)
            .all(|((base_name, _), (name, _))| base_name == name)
        && next.iter().enumerate().all(|(index, (name, _))| {
            name != DELTA_MARKER && next[..index].iter().all(|(other, _)| other != name)
        })
}

/// Applies a parsed delta on top of the previous state's full locals.
fn apply_delta(base: &Locals, delta: Locals) -> Locals {
    let mut result = base.clone();
    for (name, value) in delta {
        match result.iter_mut().find(|(existing, _)| *existing == name) {
            Some(entry) => entry.1 = value,
            None => result.push((name, value)),
        }
    }
    result
}

// ---------------------------------------------------------------------------
// Breakpoints.

/// The breakpoint action for 1-based line `line` of `source`: the line's
/// trimmed text, plus its occurrence among lines with the same trimmed text
/// when there are several. A line out of range gives an empty text.
pub fn breakpoint_action(source: &Source, line: u32) -> TextAction {
    let Some(target) = source.get_line(line).map(str::trim) else {
        return TextAction::Breakpoint {
            src: String::new(),
            occurrence: None,
        };
    };
    let mut same = 0u32;
    let mut occurrence = 0u32;
    for (index, text) in source.lines().enumerate() {
        if text.trim() == target {
            same += 1;
            if index + 1 == line as usize {
                occurrence = same;
            }
        }
    }
    TextAction::Breakpoint {
        src: target.to_string(),
        occurrence: (same > 1).then_some(occurrence),
    }
}

/// The 1-based line a breakpoint names: the `occurrence`-th line (in file
/// order) whose trimmed text equals `src` trimmed, the first when
/// `occurrence` is `None`; `None` when there is no such line.
pub fn resolve_breakpoint(source: &Source, src: &str, occurrence: Option<u32>) -> Option<u32> {
    let target = src.trim();
    let mut matches = source
        .lines()
        .enumerate()
        .filter(|(_, text)| text.trim() == target)
        .map(|(index, _)| index as u32 + 1);
    match occurrence {
        None => matches.next(),
        Some(0) => None,
        Some(k) => matches.nth(k as usize - 1),
    }
}

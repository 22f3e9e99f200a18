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
//! The printer writes `src` as given, indentation included, because the model
//! sees source lines as they are in the file. Since whitespace between parts
//! is not significant, the parser cannot tell indentation from layout, so it
//! returns `src` trimmed of surrounding whitespace: [`normalize_src`]. Round
//! trips therefore hold up to [`normalize_trajectory`]. A `src` must be one
//! line: the parser reports source text containing a line break.
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
pub fn breakpoint_action(source: &str, line: u32) -> TextAction {
    let target = match line
        .checked_sub(1)
        .and_then(|index| crate::state::source_lines(source).nth(index as usize))
    {
        Some(text) => text.trim(),
        None => {
            return TextAction::Breakpoint {
                src: String::new(),
                occurrence: None,
            }
        }
    };
    let mut same = 0u32;
    let mut occurrence = 0u32;
    for (index, text) in crate::state::source_lines(source).enumerate() {
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
pub fn resolve_breakpoint(source: &str, src: &str, occurrence: Option<u32>) -> Option<u32> {
    let target = src.trim();
    let mut matches = crate::state::source_lines(source)
        .enumerate()
        .filter(|(_, text)| text.trim() == target)
        .map(|(index, _)| index as u32 + 1);
    match occurrence {
        None => matches.next(),
        Some(0) => None,
        Some(k) => matches.nth(k as usize - 1),
    }
}

// ---------------------------------------------------------------------------
// Printer.

/// `action` as the text language writes it: breakpoints by the target
/// line's text in `source` ([`breakpoint_action`]).
pub fn text_action(source: &str, action: crate::Action) -> TextAction {
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
fn print_body(t: &TextTrajectory) -> String {
    pieces(t, false)
        .into_iter()
        .map(|piece| piece.text)
        .collect()
}

fn pieces(t: &TextTrajectory, with_end: bool) -> Vec<TrajectoryPiece> {
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

fn write_action_and_frame(out: &mut String, action: &TextAction) {
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

fn write_state(out: &mut String, state: &TextState, delta_base: Option<&Locals>) {
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

fn write_locals(out: &mut String, locals: &Locals, delta_base: Option<&Locals>) {
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
fn write_json_string(out: &mut String, text: &str) {
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

fn write_action(out: &mut String, action: &TextAction) {
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

fn action_of_token(token: &str) -> Option<TextAction> {
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

// ---------------------------------------------------------------------------
// Lexer: the text split into special tokens and the text between them.

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Piece {
    /// Text between tokens, `start..end` in the input.
    Text { start: usize, end: usize },
    /// A special token starting at `start`.
    Token { token: &'static str, start: usize },
}

impl Piece {
    fn start(self) -> usize {
        match self {
            Piece::Text { start, .. } | Piece::Token { start, .. } => start,
        }
    }

    fn end(self) -> usize {
        match self {
            Piece::Text { end, .. } => end,
            Piece::Token { token, start } => start + token.len(),
        }
    }

    fn is_token(self, wanted: &str) -> bool {
        matches!(self, Piece::Token { token, .. } if token == wanted)
    }
}

/// Splits `text` into special tokens and the text between them. Only the
/// language's own tokens are recognised; `<|anything_else|>` is text.
fn lex(text: &str) -> Vec<Piece> {
    let mut pieces = Vec::new();
    let mut text_start = 0;
    let mut search = 0;
    while let Some(found) = text[search..].find("<|") {
        let at = search + found;
        match SPECIAL_TOKENS
            .iter()
            .find(|token| text[at..].starts_with(**token))
        {
            Some(token) => {
                if text_start < at {
                    pieces.push(Piece::Text {
                        start: text_start,
                        end: at,
                    });
                }
                pieces.push(Piece::Token { token, start: at });
                text_start = at + token.len();
                search = text_start;
            }
            // "<|" is two ASCII bytes, so `at + 1` is a character boundary.
            None => search = at + 1,
        }
    }
    if text_start < text.len() {
        pieces.push(Piece::Text {
            start: text_start,
            end: text.len(),
        });
    }
    pieces
}

/// A view of some pieces of the input.
#[derive(Clone, Copy)]
struct Pieces<'a> {
    text: &'a str,
    pieces: &'a [Piece],
    /// Where the viewed part of the input ends (for errors about missing
    /// parts).
    end: usize,
}

impl<'a> Pieces<'a> {
    fn slice(self, piece: Piece) -> &'a str {
        &self.text[piece.start()..piece.end()]
    }

    fn is_blank(self, piece: Piece) -> bool {
        matches!(piece, Piece::Text { .. }) && self.slice(piece).trim().is_empty()
    }

    fn sub(self, from: usize, to: usize) -> Pieces<'a> {
        let end = self
            .pieces
            .get(to)
            .map(|piece| piece.start())
            .unwrap_or(self.end);
        Pieces {
            text: self.text,
            pieces: &self.pieces[from..to],
            end,
        }
    }

    /// The index of the first piece that is one of `tokens`.
    fn find_token(self, tokens: &[&str]) -> Option<usize> {
        self.pieces
            .iter()
            .position(|piece| tokens.iter().any(|token| piece.is_token(token)))
    }

    /// The first piece that is not blank text, from `index` on.
    fn skip_blank(self, mut index: usize) -> usize {
        while index < self.pieces.len() && self.is_blank(self.pieces[index]) {
            index += 1;
        }
        index
    }

    fn offset_of(self, index: usize) -> usize {
        self.pieces
            .get(index)
            .map(|piece| piece.start())
            .unwrap_or(self.end)
    }

    fn describe(self, index: usize) -> String {
        match self.pieces.get(index) {
            None => "the end of the text".to_string(),
            Some(Piece::Token { token, .. }) => format!("`{token}`"),
            Some(piece) => {
                let text = self.slice(*piece).trim();
                let shown: String = text.chars().take(20).collect();
                if shown.len() < text.len() {
                    format!("text `{shown}...`")
                } else {
                    format!("text `{shown}`")
                }
            }
        }
    }

    /// Checks that only blank text remains from `index` on.
    fn expect_rest_blank(self, index: usize, after: &str) -> Result<(), ParseError> {
        let index = self.skip_blank(index);
        if index < self.pieces.len() {
            return Err(ParseError::new(
                self.offset_of(index),
                format!("unexpected {} after {after}", self.describe(index)),
            ));
        }
        Ok(())
    }

    /// Expects `token` at the first non-blank piece from `index`, and returns
    /// the index after it.
    fn expect_token(self, index: usize, token: &str, context: &str) -> Result<usize, ParseError> {
        let index = self.skip_blank(index);
        match self.pieces.get(index) {
            Some(piece) if piece.is_token(token) => Ok(index + 1),
            _ => Err(ParseError::new(
                self.offset_of(index),
                format!(
                    "expected `{token}` {context}, found {}",
                    self.describe(index)
                ),
            )),
        }
    }

    /// The text piece at `index` (empty when a token or the end is there),
    /// with its offset, and the index after it.
    fn text_at(self, index: usize) -> (&'a str, usize, usize) {
        match self.pieces.get(index) {
            Some(piece @ Piece::Text { start, .. }) => (self.slice(*piece), *start, index + 1),
            _ => ("", self.offset_of(index), index),
        }
    }
}

/// Source text after a `<|src_sep|>` or `<|breakpoint|>`: trimmed, one line.
fn parse_src(text: &str, offset: usize) -> Result<String, ParseError> {
    let trimmed = text.trim();
    if let Some(at) = trimmed.find(['\n', '\r']) {
        let leading = text.len() - text.trim_start().len();
        return Err(ParseError::new(
            offset + leading + at,
            "source text spans more than one line (a `<|...|>` separator is missing?)",
        ));
    }
    Ok(trimmed.to_string())
}

// ---------------------------------------------------------------------------
// State and action parsers.

/// Parses the pieces of one state (from its event token to just before the
/// `<|action_sep|>`, `<|trace_end|>` or `<|frame_sep|>` that ends it).
/// Returns the state and whether its locals were written as a delta.
fn parse_state_pieces(
    view: Pieces<'_>,
    previous_locals: Option<&Locals>,
) -> Result<(TextState, bool), ParseError> {
    let first = view.skip_blank(0);
    let shape = match view.pieces.get(first) {
        Some(Piece::Token { token, .. }) => Shape::of_token(token),
        _ => None,
    };
    let Some(shape) = shape else {
        let found = view.describe(first);
        return Err(ParseError::new(
            view.offset_of(first),
            format!("expected a state's event marker (such as `{LINE_SEP}`), found {found}"),
        ));
    };
    let mut state = TextState {
        event: shape.event,
        inverse: shape.inverse,
        src: String::new(),
        locals: Locals::new(),
        value: None,
    };
    let Some(payload) = shape.payload else {
        view.expect_rest_blank(first + 1, shape.token)?;
        return Ok((state, false));
    };
    let fields: [&str; 2] = if shape.src_first {
        [SRC_SEP, ARG_SEP]
    } else {
        [ARG_SEP, SRC_SEP]
    };
    let mut index = first + 1;
    let mut was_delta = false;
    for field in fields {
        let context = format!("in a `{}` state", shape.token);
        index = view.expect_token(index, field, &context)?;
        let (text, offset, next) = view.text_at(index);
        index = next;
        if field == SRC_SEP {
            state.src = parse_src(text, offset)?;
            continue;
        }
        match payload {
            Payload::Value => state.value = Some(parse_whole_json_string(text, offset)?),
            Payload::Locals => {
                let (locals, delta) = parse_locals_object(text, offset)?;
                was_delta = delta;
                state.locals = if delta {
                    let Some(base) = previous_locals else {
                        return Err(ParseError::new(
                            offset,
                            "delta locals (with `\"..\": \"..\"`) but the previous state has no locals to apply them to",
                        ));
                    };
                    apply_delta(base, locals)
                } else {
                    locals
                };
            }
        }
    }
    view.expect_rest_blank(index, &format!("a `{}` state", shape.token))?;
    Ok((state, was_delta))
}

/// Parses the pieces of one action (after `<|action_sep|>`).
fn parse_action_pieces(view: Pieces<'_>) -> Result<TextAction, ParseError> {
    let first = view.skip_blank(0);
    let action = match view.pieces.get(first) {
        Some(Piece::Token { token, .. }) => action_of_token(token),
        _ => None,
    };
    let Some(action) = action else {
        let found = view.describe(first);
        return Err(ParseError::new(
            view.offset_of(first),
            format!("expected an action (such as `{STEP_INTO}`), found {found}"),
        ));
    };
    if !matches!(action, TextAction::Breakpoint { .. }) {
        view.expect_rest_blank(first + 1, "an action")?;
        return Ok(action);
    }
    let (text, offset, mut index) = view.text_at(first + 1);
    let src = parse_src(text, offset)?;
    let mut occurrence = None;
    let after_src = view.skip_blank(index);
    if view
        .pieces
        .get(after_src)
        .is_some_and(|piece| piece.is_token(ARG_SEP))
    {
        let (text, offset, next) = view.text_at(after_src + 1);
        index = next;
        let digits = text.trim();
        match digits.parse::<u32>() {
            Ok(k) if digits.bytes().all(|b| b.is_ascii_digit()) => occurrence = Some(k),
            _ => {
                return Err(ParseError::new(
                    offset,
                    format!("expected the breakpoint line's occurrence number after `{ARG_SEP}`"),
                ))
            }
        }
    }
    view.expect_rest_blank(index, "a breakpoint action")?;
    Ok(TextAction::Breakpoint { src, occurrence })
}

/// A stand-in start state for a trajectory whose start could not be read
/// (an error says so).
fn placeholder_state() -> TextState {
    TextState {
        event: TextEvent::ExitNever,
        inverse: false,
        src: String::new(),
        locals: Locals::new(),
        value: None,
    }
}

/// Parses one state as the model writes it after a `<|frame_sep|>`. A
/// leading `<|frame_sep|>` is allowed, and anything from the first
/// `<|action_sep|>`, `<|trace_end|>` or further `<|frame_sep|>` on is
/// ignored. Delta locals are applied to `previous_locals` (an error when
/// there are none). Returns the state (`None` on any error: nothing is
/// guessed), whether its locals were a delta, and the errors.
pub fn parse_state(
    text: &str,
    previous_locals: Option<&Locals>,
) -> (Option<TextState>, bool, Vec<ParseError>) {
    let pieces = lex(text);
    let view = Pieces {
        text,
        pieces: &pieces,
        end: text.len(),
    };
    let mut start = view.skip_blank(0);
    if view
        .pieces
        .get(start)
        .is_some_and(|piece| piece.is_token(FRAME_SEP))
    {
        start += 1;
    }
    let rest = view.sub(start, pieces.len());
    let end = rest
        .find_token(&[ACTION_SEP, TRACE_END, FRAME_SEP])
        .unwrap_or(rest.pieces.len());
    match parse_state_pieces(rest.sub(0, end), previous_locals) {
        Ok((state, delta)) => (Some(state), delta, Vec::new()),
        Err(error) => (None, false, vec![error]),
    }
}

/// Parses a whole trajectory. Never panics; returns everything it could read
/// and the errors found (see the module docs for what is dropped).
pub fn parse_trajectory(text: &str) -> (TextTrajectory, Vec<ParseError>) {
    let pieces = lex(text);
    let view = Pieces {
        text,
        pieces: &pieces,
        end: text.len(),
    };
    let mut errors = Vec::new();
    let mut trajectory = TextTrajectory {
        source: String::new(),
        start: placeholder_state(),
        steps: Vec::new(),
        ended: false,
    };

    // The source: from `<|trace_context_start|>` to the first `<|frame_sep|>`.
    let first = view.skip_blank(0);
    let first_frame = view.find_token(&[FRAME_SEP]);
    if view
        .pieces
        .get(first)
        .is_some_and(|piece| piece.is_token(TRACE_CONTEXT_START))
    {
        let source_start = pieces[first].end();
        let source_end = first_frame.map_or(text.len(), |index| pieces[index].start());
        let source = &text[source_start..source_end];
        trajectory.source = source.strip_suffix('\n').unwrap_or(source).to_string();
    } else {
        let found = view.describe(first);
        errors.push(ParseError::new(
            view.offset_of(first),
            format!("expected `{TRACE_CONTEXT_START}` and the source, found {found}"),
        ));
    }
    let Some(first_frame) = first_frame else {
        errors.push(ParseError::new(
            text.len(),
            format!("missing `{FRAME_SEP}` and the start state"),
        ));
        return (trajectory, errors);
    };

    // The frames: each is a state, then optionally an action (leading to the
    // next frame's state) and `<|trace_end|>`.
    let frames = view.sub(first_frame + 1, pieces.len());
    let mut bounds = Vec::new();
    let mut frame_start = 0;
    for (index, piece) in frames.pieces.iter().enumerate() {
        if piece.is_token(FRAME_SEP) {
            bounds.push((frame_start, index));
            frame_start = index + 1;
        }
    }
    bounds.push((frame_start, frames.pieces.len()));
    let frame_count = bounds.len();

    let mut previous_locals: Option<Locals> = None;
    let mut pending_action: Option<TextAction> = None;
    let mut frame_had_action = true;
    for (number, &(from, to)) in bounds.iter().enumerate() {
        let frame = frames.sub(from, to);
        let is_last = number + 1 == frame_count;
        let state_end = frame
            .find_token(&[ACTION_SEP, TRACE_END])
            .unwrap_or(frame.pieces.len());
        let state = parse_state_pieces(frame.sub(0, state_end), previous_locals.as_ref());
        match state {
            Ok((state, delta)) => {
                previous_locals = has_locals(&state).then(|| state.locals.clone());
                if number == 0 {
                    trajectory.start = state;
                } else if let Some(action) = pending_action.take() {
                    trajectory.steps.push(TextStep {
                        action,
                        state,
                        delta,
                    });
                } else if !frame_had_action {
                    errors.push(ParseError::new(
                        frames.pieces[from - 1].start(),
                        format!("missing `{ACTION_SEP}` and an action before this state"),
                    ));
                }
            }
            Err(error) => {
                errors.push(error);
                previous_locals = None;
            }
        }
        pending_action = None;

        // What follows the state: `<|action_sep|>ACTION`, `<|trace_end|>`.
        frame_had_action = false;
        let mut index = state_end;
        while index < frame.pieces.len() {
            let piece = frame.pieces[index];
            if piece.is_token(ACTION_SEP) {
                let action_end = frame
                    .sub(index + 1, frame.pieces.len())
                    .find_token(&[ACTION_SEP, TRACE_END])
                    .map_or(frame.pieces.len(), |found| index + 1 + found);
                if frame_had_action {
                    errors.push(ParseError::new(
                        piece.start(),
                        format!("a second `{ACTION_SEP}` in one frame"),
                    ));
                } else {
                    frame_had_action = true;
                    match parse_action_pieces(frame.sub(index + 1, action_end)) {
                        Ok(action) => pending_action = Some(action),
                        Err(error) => errors.push(error),
                    }
                }
                index = action_end;
            } else {
                // `<|trace_end|>`: the only other way `state_end` or
                // `action_end` stops.
                if !is_last {
                    errors.push(ParseError::new(
                        piece.start(),
                        format!("`{TRACE_END}` before the last frame"),
                    ));
                } else {
                    trajectory.ended = true;
                    if frame_had_action {
                        errors.push(ParseError::new(
                            piece.start(),
                            format!("`{TRACE_END}` right after an action: the action's state is missing"),
                        ));
                    }
                }
                if let Err(error) = frame
                    .sub(index + 1, frame.pieces.len())
                    .expect_rest_blank(0, &format!("`{TRACE_END}`"))
                {
                    errors.push(error);
                }
                break;
            }
        }
        if is_last && frame_had_action && !trajectory.ended {
            errors.push(ParseError::new(
                frame.end,
                "an action without the state it leads to at the end of the text",
            ));
        }
    }
    (trajectory, errors)
}

// ---------------------------------------------------------------------------
// A small JSON reader: objects of strings and strings, nothing else.

struct JsonReader<'a> {
    text: &'a str,
    position: usize,
    /// The offset of `text` in the whole parsed input.
    base: usize,
}

impl<'a> JsonReader<'a> {
    fn new(text: &'a str, base: usize) -> JsonReader<'a> {
        JsonReader {
            text,
            position: 0,
            base,
        }
    }

    fn error(&self, message: impl Into<String>) -> ParseError {
        ParseError::new(self.base + self.position, message)
    }

    fn peek(&self) -> Option<char> {
        self.text[self.position..].chars().next()
    }

    fn bump(&mut self) -> Option<char> {
        let c = self.peek()?;
        self.position += c.len_utf8();
        Some(c)
    }

    fn skip_whitespace(&mut self) {
        while matches!(self.peek(), Some(' ' | '\t' | '\n' | '\r')) {
            self.position += 1;
        }
    }

    fn describe_next(&self) -> String {
        match self.peek() {
            None => "the end of the text (cut off?)".to_string(),
            Some(c) => format!("`{}`", c.escape_debug()),
        }
    }

    fn expect_end(&mut self, what: &str) -> Result<(), ParseError> {
        self.skip_whitespace();
        match self.peek() {
            None => Ok(()),
            Some(_) => Err(self.error(format!("unexpected {} after {what}", self.describe_next()))),
        }
    }

    /// Reads a JSON string starting at the current position (its `"`).
    fn string(&mut self) -> Result<String, ParseError> {
        if self.peek() != Some('"') {
            return Err(self.error(format!(
                "expected a JSON string, found {}",
                self.describe_next()
            )));
        }
        self.position += 1;
        let mut value = String::new();
        loop {
            let at = self.position;
            let Some(c) = self.bump() else {
                return Err(self.error("a JSON string is cut off"));
            };
            match c {
                '"' => return Ok(value),
                '\\' => value.push(self.escape(at)?),
                c if (c as u32) < 0x20 => {
                    self.position = at;
                    return Err(self.error(format!(
                        "a raw control character `{}` in a JSON string",
                        c.escape_debug()
                    )));
                }
                c => value.push(c),
            }
        }
    }

    /// Reads the rest of an escape whose `\` was at `at`.
    fn escape(&mut self, at: usize) -> Result<char, ParseError> {
        let Some(c) = self.bump() else {
            return Err(self.error("a JSON string is cut off"));
        };
        Ok(match c {
            '"' => '"',
            '\\' => '\\',
            '/' => '/',
            'b' => '\u{8}',
            'f' => '\u{c}',
            'n' => '\n',
            'r' => '\r',
            't' => '\t',
            'u' => {
                let high = self.hex4(at)?;
                if !(0xD800..0xE000).contains(&high) {
                    // Not a surrogate, so a valid scalar value.
                    return char::from_u32(high).ok_or_else(|| self.error("bad unicode escape"));
                }
                let low_at = self.position;
                if high >= 0xDC00 || !self.text[self.position..].starts_with("\\u") {
                    self.position = at;
                    return Err(self.error("an unpaired surrogate in a `\\u` escape"));
                }
                self.position += 2;
                let low = self.hex4(low_at)?;
                if !(0xDC00..0xE000).contains(&low) {
                    self.position = at;
                    return Err(self.error("an unpaired surrogate in a `\\u` escape"));
                }
                let scalar = 0x10000 + ((high - 0xD800) << 10) + (low - 0xDC00);
                char::from_u32(scalar).ok_or_else(|| self.error("bad unicode escape"))?
            }
            other => {
                self.position = at;
                return Err(self.error(format!(
                    "a bad escape `\\{}` in a JSON string",
                    other.escape_debug()
                )));
            }
        })
    }

    /// Reads four hex digits of a `\u` escape whose `\` was at `at`.
    fn hex4(&mut self, at: usize) -> Result<u32, ParseError> {
        let mut value = 0;
        for _ in 0..4 {
            match self.peek() {
                None => return Err(self.error("a JSON string is cut off")),
                Some(c) => match c.to_digit(16) {
                    Some(digit) => {
                        value = value * 16 + digit;
                        self.position += 1;
                    }
                    None => {
                        self.position = at;
                        return Err(self.error("a `\\u` escape needs four hex digits"));
                    }
                },
            }
        }
        Ok(value)
    }

    /// Reads a JSON object whose values are all strings. Returns its entries
    /// (without the delta marker) and whether the marker was there.
    fn locals_object(&mut self) -> Result<(Locals, bool), ParseError> {
        self.skip_whitespace();
        if self.peek() != Some('{') {
            return Err(self.error(format!(
                "expected a JSON object of locals, found {}",
                self.describe_next()
            )));
        }
        self.position += 1;
        let mut locals = Locals::new();
        let mut delta = false;
        self.skip_whitespace();
        if self.peek() == Some('}') {
            self.position += 1;
            return Ok((locals, delta));
        }
        loop {
            self.skip_whitespace();
            let key_at = self.position;
            let key = self.string()?;
            self.skip_whitespace();
            if self.peek() != Some(':') {
                return Err(self.error(format!(
                    "expected `:` after a name in the locals, found {}",
                    self.describe_next()
                )));
            }
            self.position += 1;
            self.skip_whitespace();
            if self.peek() != Some('"') {
                return Err(self.error(format!(
                    "expected a JSON string (a repr) as the value of `{}`, found {}",
                    key.escape_debug(),
                    self.describe_next()
                )));
            }
            let value_at = self.position;
            let value = self.string()?;
            if key == DELTA_MARKER {
                if delta {
                    return Err(ParseError::new(
                        self.base + key_at,
                        "a second `\"..\"` entry",
                    ));
                }
                if value != DELTA_MARKER {
                    return Err(ParseError::new(
                        self.base + value_at,
                        "the delta marker must be written `\"..\": \"..\"`",
                    ));
                }
                delta = true;
            } else if locals.iter().any(|(name, _)| *name == key) {
                return Err(ParseError::new(
                    self.base + key_at,
                    format!(
                        "the name `{}` appears twice in the locals",
                        key.escape_debug()
                    ),
                ));
            } else {
                locals.push((key, value));
            }
            self.skip_whitespace();
            match self.peek() {
                Some(',') => self.position += 1,
                Some('}') => {
                    self.position += 1;
                    return Ok((locals, delta));
                }
                None => return Err(self.error("the locals object is cut off")),
                Some(_) => {
                    return Err(self.error(format!(
                        "expected `,` or `}}` in the locals, found {}",
                        self.describe_next()
                    )))
                }
            }
        }
    }
}

/// Parses a whole text as one locals object (surrounding whitespace allowed).
fn parse_locals_object(text: &str, offset: usize) -> Result<(Locals, bool), ParseError> {
    let mut reader = JsonReader::new(text, offset);
    let result = reader.locals_object()?;
    reader.expect_end("the locals object")?;
    Ok(result)
}

/// Parses a whole text as one JSON string (surrounding whitespace allowed).
fn parse_whole_json_string(text: &str, offset: usize) -> Result<String, ParseError> {
    let mut reader = JsonReader::new(text, offset);
    reader.skip_whitespace();
    let value = reader.string()?;
    reader.expect_end("the value")?;
    Ok(value)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn locals(pairs: &[(&str, &str)]) -> Locals {
        pairs
            .iter()
            .map(|(name, value)| (name.to_string(), value.to_string()))
            .collect()
    }

    fn state(
        event: TextEvent,
        inverse: bool,
        src: &str,
        pairs: &[(&str, &str)],
        value: Option<&str>,
    ) -> TextState {
        TextState {
            event,
            inverse,
            src: src.to_string(),
            locals: locals(pairs),
            value: value.map(str::to_string),
        }
    }

    fn round_trip_state(state: &TextState) {
        let printed = print_state(state, None);
        let (parsed, delta, errors) = parse_state(&printed, None);
        assert_eq!(errors, vec![], "{printed}");
        assert!(!delta);
        assert_eq!(parsed, Some(normalize_state(state)), "{printed}");
    }

    #[test]
    fn special_tokens_are_distinct_and_well_formed() {
        for (index, token) in SPECIAL_TOKENS.iter().enumerate() {
            assert!(token.starts_with("<|") && token.ends_with("|>"), "{token}");
            assert!(!SPECIAL_TOKENS[..index].contains(token), "{token}");
        }
        assert_eq!(SPECIAL_TOKENS.len(), 27);
        for shape in SHAPES {
            assert!(SPECIAL_TOKENS.contains(&shape.token));
        }
    }

    #[test]
    fn forward_states_print_as_documented() {
        let call = state(TextEvent::Call, false, "def f(x):", &[("x", "5")], None);
        assert_eq!(
            print_state(&call, None),
            r#"<|call_sep|><|src_sep|>def f(x):<|arg_sep|>{"x": "5"}"#
        );
        let line = state(
            TextEvent::Line,
            false,
            "    n += x",
            &[("x", "5"), ("n", "0")],
            None,
        );
        assert_eq!(
            print_state(&line, Some(&locals(&[("x", "5")]))),
            r#"<|line_sep|><|arg_sep|>{"..": "..", "n": "0"}<|src_sep|>    n += x"#
        );
        let ret = state(TextEvent::Return, false, "    return n", &[], Some("5"));
        assert_eq!(
            print_state(&ret, None),
            r#"<|return_sep|><|src_sep|>    return n<|arg_sep|>"5""#
        );
        let exception = state(
            TextEvent::Exception,
            false,
            "    x = 1 / 0",
            &[],
            Some("ZeroDivisionError('division by zero')"),
        );
        assert_eq!(
            print_state(&exception, None),
            r#"<|exception_sep|><|src_sep|>    x = 1 / 0<|arg_sep|>"ZeroDivisionError('division by zero')""#
        );
        for (event, token) in [
            (TextEvent::ExitNormal, EXIT_NORMAL),
            (TextEvent::ExitError, EXIT_ERROR),
            (TextEvent::ExitNever, EXIT_NEVER),
        ] {
            assert_eq!(
                print_state(&state(event, false, "", &[], None), None),
                token
            );
        }
        for state in [call, line, ret, exception] {
            round_trip_state(&state);
        }
    }

    #[test]
    fn inverse_states_put_the_source_first() {
        let cases = [
            (TextEvent::Call, INV_CALL_SEP),
            (TextEvent::Line, INV_LINE_SEP),
            (TextEvent::LineCall, INV_LINE_CALL_SEP),
        ];
        for (event, token) in cases {
            let s = state(event, true, "  y = g(x)", &[("x", "[1, 2]")], None);
            assert_eq!(
                print_state(&s, None),
                format!(r#"{token}<|src_sep|>  y = g(x)<|arg_sep|>{{"x": "[1, 2]"}}"#)
            );
            round_trip_state(&s);
        }
        for (event, token) in [
            (TextEvent::Return, INV_RETURN_SEP),
            (TextEvent::Exception, INV_EXCEPTION_SEP),
        ] {
            let s = state(event, true, "return y", &[], Some("'a'"));
            assert_eq!(
                print_state(&s, None),
                format!(r#"{token}<|src_sep|>return y<|arg_sep|>"'a'""#)
            );
            round_trip_state(&s);
        }
        let entry = state(TextEvent::ExitEntry, true, "", &[], None);
        assert_eq!(print_state(&entry, None), INV_EXIT_ENTRY);
        round_trip_state(&entry);
    }

    #[test]
    fn impossible_combinations_print_as_their_closest_form() {
        let line_call = state(TextEvent::LineCall, false, "x", &[("a", "1")], Some("v"));
        assert!(print_state(&line_call, None).starts_with(INV_LINE_CALL_SEP));
        round_trip_state(&line_call);
        let exit = state(TextEvent::ExitError, true, "x", &[("a", "1")], Some("v"));
        assert_eq!(print_state(&exit, None), EXIT_ERROR);
        round_trip_state(&exit);
        let entry = state(TextEvent::ExitEntry, false, "", &[], None);
        assert_eq!(print_state(&entry, None), INV_EXIT_ENTRY);
        let ret = state(TextEvent::Return, false, "return", &[("a", "1")], None);
        assert_eq!(
            print_state(&ret, None),
            r#"<|return_sep|><|src_sep|>return<|arg_sep|>"""#
        );
        round_trip_state(&ret);
        assert_eq!(normalize_state(&ret).value.as_deref(), Some(""));
    }

    #[test]
    fn escapes_round_trip() {
        let nasty = [
            "'say \"hi\"'",
            "'back\\\\slash'",
            "line\nbreak\ttab\rreturn",
            "\u{0}\u{1}\u{1f}\u{7f}",
            "é ü 中文 😀 🧑‍🚀",
            "<|frame_sep|> and <|other|> and <| and |>",
            "..",
            "",
        ];
        for value in nasty {
            let s = TextState {
                event: TextEvent::Call,
                inverse: false,
                src: "def f(a):".to_string(),
                locals: vec![
                    ("a".to_string(), value.to_string()),
                    (value.to_string() + "_k", value.to_string()),
                ],
                value: None,
            };
            let printed = print_state(&s, None);
            assert!(!printed.contains("<|frame_sep|> and"), "{printed}");
            assert!(!printed.contains('\n'), "{printed}");
            round_trip_state(&s);
            let r = state(TextEvent::Return, false, "return a", &[], Some(value));
            round_trip_state(&r);
        }
        let printed = print_state(
            &state(
                TextEvent::Return,
                false,
                "r",
                &[],
                Some("a\"b\\c\nd\u{1}é😀<|x"),
            ),
            None,
        );
        assert_eq!(
            printed,
            r#"<|return_sep|><|src_sep|>r<|arg_sep|>"a\"b\\c\nd\u0001é😀<\u007cx""#
        );
    }

    #[test]
    fn json_reader_accepts_standard_escapes() {
        let (value, errors) = {
            let (state, _, errors) = parse_state(
                r#"<|return_sep|><|src_sep|>r<|arg_sep|> "\/\b\f\u00e9\ud83d\ude00\u0041" "#,
                None,
            );
            (state.and_then(|s| s.value), errors)
        };
        assert_eq!(errors, vec![]);
        assert_eq!(value.as_deref(), Some("/\u{8}\u{c}é😀A"));
    }

    #[test]
    fn json_errors_are_reported_not_guessed() {
        let cases = [
            (r#"{"x": "5""#, "cut off"),
            (r#"{"x": "5"#, "cut off"),
            (r#"{"x": "5\"#, "cut off"),
            (r#"{"x": "\u12"#, "cut off"),
            (r#"{"x": "\q"}"#, "bad escape"),
            (r#"{"x": "\ud800"}"#, "unpaired surrogate"),
            (r#"{"x": "\udc00\udc00"}"#, "unpaired surrogate"),
            (r#"{"x": "\uzzzz"}"#, "four hex digits"),
            (r#"{"x": {"y": "1"}}"#, "expected a JSON string"),
            (r#"{"x": 5}"#, "expected a JSON string"),
            (r#"{"x" "5"}"#, "expected `:`"),
            (r#"{"x": "5" "y": "6"}"#, "expected `,` or `}`"),
            (r#"{"x": "5"} trailing"#, "unexpected"),
            (r#"{"x": "5", "x": "6"}"#, "twice"),
            (r#"{"..": "x"}"#, "delta marker"),
            ("{\"x\": \"a\u{1}\"}", "raw control"),
            (r#"["x"]"#, "expected a JSON object"),
            ("", "expected a JSON object"),
        ];
        for (json, expected) in cases {
            let text = format!("<|call_sep|><|src_sep|>def f():<|arg_sep|>{json}");
            let (state, _, errors) = parse_state(&text, None);
            assert_eq!(state, None, "{json}");
            assert_eq!(errors.len(), 1, "{json}");
            assert!(
                errors[0].message.contains(expected),
                "{json}: {}",
                errors[0]
            );
            assert!(errors[0].offset <= text.len());
        }
    }

    #[test]
    fn deltas_print_changed_and_new_names_and_parse_back() {
        let previous = state(
            TextEvent::Line,
            false,
            "a = 1",
            &[("x", "5"), ("n", "0")],
            None,
        );
        let next = state(
            TextEvent::Line,
            false,
            "b = 2",
            &[("x", "5"), ("n", "1"), ("i", "0")],
            None,
        );
        assert!(delta_possible(&previous, &next));
        let printed = print_state(&next, Some(&previous.locals));
        assert_eq!(
            printed,
            r#"<|line_sep|><|arg_sep|>{"..": "..", "n": "1", "i": "0"}<|src_sep|>b = 2"#
        );
        let (parsed, delta, errors) = parse_state(&printed, Some(&previous.locals));
        assert_eq!(errors, vec![]);
        assert!(delta);
        assert_eq!(parsed, Some(next.clone()));

        let unchanged = print_state(&previous, Some(&previous.locals));
        assert_eq!(
            unchanged,
            r#"<|line_sep|><|arg_sep|>{"..": ".."}<|src_sep|>a = 1"#
        );

        // The marker anywhere in the object, and a parsed delta against
        // names in another order, follow the parser's rule.
        let (parsed, delta, _) = parse_state(
            r#"<|frame_sep|><|line_sep|><|arg_sep|>{"i": "9", "..": "..", "x": "6"}<|src_sep|>c<|action_sep|><|step_into|>"#,
            Some(&previous.locals),
        );
        assert!(delta);
        assert_eq!(
            parsed.unwrap().locals,
            locals(&[("x", "6"), ("n", "0"), ("i", "9")])
        );

        // A delta without a base is an error.
        let (parsed, _, errors) = parse_state(&printed, None);
        assert_eq!(parsed, None);
        assert!(errors[0].message.contains("no locals"));
    }

    #[test]
    fn deltas_that_cannot_be_exact_print_in_full() {
        let previous = state(TextEvent::Line, false, "a", &[("x", "5"), ("n", "0")], None);
        let removed = state(TextEvent::Line, false, "b", &[("x", "5")], None);
        let reordered = state(TextEvent::Line, false, "b", &[("n", "0"), ("x", "5")], None);
        let ret = state(TextEvent::Return, false, "return", &[], Some("1"));
        let call = state(TextEvent::Call, false, "def f():", &[], None);
        let marker = state(
            TextEvent::Line,
            false,
            "b",
            &[("x", "5"), ("n", "0"), ("..", "1")],
            None,
        );
        assert!(!delta_possible(&previous, &removed));
        assert!(!delta_possible(&previous, &reordered));
        assert!(!delta_possible(&ret, &call));
        assert!(!delta_possible(&previous, &ret));
        assert!(!delta_possible(&previous, &marker));
        assert!(delta_possible(&call, &previous));
        assert_eq!(
            print_state(&removed, Some(&previous.locals)),
            r#"<|line_sep|><|arg_sep|>{"x": "5"}<|src_sep|>b"#
        );
        assert_eq!(
            print_state(&reordered, Some(&previous.locals)),
            r#"<|line_sep|><|arg_sep|>{"n": "0", "x": "5"}<|src_sep|>b"#
        );
    }

    #[test]
    fn breakpoints_name_lines_by_text_and_occurrence() {
        let source = "def f(x):\n    x += 1\n    if x:\n        x += 1\n    return x\r\n";
        assert_eq!(
            breakpoint_action(source, 2),
            TextAction::Breakpoint {
                src: "x += 1".to_string(),
                occurrence: Some(1)
            }
        );
        assert_eq!(
            breakpoint_action(source, 4),
            TextAction::Breakpoint {
                src: "x += 1".to_string(),
                occurrence: Some(2)
            }
        );
        assert_eq!(
            breakpoint_action(source, 5),
            TextAction::Breakpoint {
                src: "return x".to_string(),
                occurrence: None
            }
        );
        assert_eq!(
            breakpoint_action(source, 9),
            TextAction::Breakpoint {
                src: String::new(),
                occurrence: None
            }
        );
        for line in 1..=5 {
            let TextAction::Breakpoint { src, occurrence } = breakpoint_action(source, line) else {
                unreachable!()
            };
            assert_eq!(resolve_breakpoint(source, &src, occurrence), Some(line));
        }
        assert_eq!(resolve_breakpoint(source, "  x += 1 ", None), Some(2));
        assert_eq!(resolve_breakpoint(source, "x += 1", Some(3)), None);
        assert_eq!(resolve_breakpoint(source, "x += 1", Some(0)), None);
        assert_eq!(resolve_breakpoint(source, "y = 2", None), None);

        let action = breakpoint_action(source, 4);
        assert_eq!(print_action(&action), "<|breakpoint|>x += 1<|arg_sep|>2");
        assert_eq!(
            print_action(&breakpoint_action(source, 5)),
            "<|breakpoint|>return x"
        );
    }

    #[test]
    fn actions_print_as_tokens() {
        let actions = [
            (TextAction::StepInto, STEP_INTO),
            (TextAction::StepOver, STEP_OVER),
            (TextAction::StepReturn, STEP_RETURN),
            (TextAction::Continue, CONTINUE),
            (TextAction::InvStepInto, INV_STEP_INTO),
            (TextAction::InvStepOver, INV_STEP_OVER),
            (TextAction::InvStepCall, INV_STEP_CALL),
        ];
        for (action, token) in actions {
            assert_eq!(print_action(&action), token);
            assert_eq!(action_of_token(token), Some(action));
        }
    }

    fn small_trajectory() -> TextTrajectory {
        let source = "def f(x):\n    n = x\n    n += 1\n    return n".to_string();
        let call = state(TextEvent::Call, false, "def f(x):", &[("x", "1")], None);
        let line1 = state(TextEvent::Line, false, "    n = x", &[("x", "1")], None);
        let line2 = state(
            TextEvent::Line,
            false,
            "    n += 1",
            &[("x", "1"), ("n", "1")],
            None,
        );
        let ret = state(TextEvent::Return, false, "    return n", &[], Some("2"));
        TextTrajectory {
            source,
            start: call,
            steps: vec![
                TextStep {
                    action: TextAction::StepInto,
                    state: line1,
                    delta: true,
                },
                TextStep {
                    action: TextAction::StepOver,
                    state: line2,
                    delta: true,
                },
                TextStep {
                    action: TextAction::StepReturn,
                    state: ret,
                    delta: false,
                },
                TextStep {
                    action: TextAction::Continue,
                    state: state(TextEvent::ExitNormal, false, "", &[], None),
                    delta: false,
                },
            ],
            ended: true,
        }
    }

    #[test]
    fn trajectories_round_trip() {
        let t = small_trajectory();
        let printed = print_trajectory(&t);
        assert!(printed.starts_with("<|trace_context_start|>def f(x):\n"));
        assert!(printed.ends_with("<|exit_normal|><|trace_end|>"));
        let (parsed, errors) = parse_trajectory(&printed);
        assert_eq!(errors, vec![]);
        assert_eq!(parsed, normalize_trajectory(&t));
        assert!(parsed.steps[0].delta && parsed.steps[1].delta);

        // Whitespace between parts is not significant.
        let spaced = printed
            .replace("<|frame_sep|>", " \n <|frame_sep|>\t")
            .replace("<|action_sep|>", "\n<|action_sep|> ");
        let (reparsed, errors) = parse_trajectory(&format!("  \n{spaced}\n\n"));
        assert_eq!(errors, vec![]);
        assert_eq!(reparsed.steps, parsed.steps);
    }

    #[test]
    fn prompt_prefix_is_the_printed_trajectory_up_to_the_next_state() {
        let mut t = small_trajectory();
        t.ended = false;
        let last = t.steps.pop().unwrap();
        let prefix = prompt_prefix(&t, &last.action);
        assert!(prefix.ends_with("<|action_sep|><|continue|>\n<|frame_sep|>"));
        t.steps.push(last.clone());
        assert_eq!(
            prefix + &print_state(&last.state, None),
            print_trajectory(&t)
        );
    }

    #[test]
    fn the_source_is_kept_byte_exact() {
        for source in [
            "",
            "\n",
            "x = 1\n\n",
            "  a\r\n\tb  ",
            "<|arg_sep|> in source",
        ] {
            let t = TextTrajectory {
                source: source.to_string(),
                start: state(TextEvent::ExitNever, false, "", &[], None),
                steps: vec![],
                ended: false,
            };
            let (parsed, errors) = parse_trajectory(&print_trajectory(&t));
            assert_eq!(errors, vec![]);
            assert_eq!(parsed, t);
        }
    }

    #[test]
    fn broken_frames_are_dropped_and_reported_with_resynchronisation() {
        let t = small_trajectory();
        let printed = print_trajectory(&t);
        // Break the first line state's JSON: the step is dropped, and the
        // next (delta) state cannot be read either.
        let broken = printed.replacen(r#"{"..": ".."}"#, r#"{"..": ".."#, 1);
        let (parsed, errors) = parse_trajectory(&broken);
        assert_eq!(errors.len(), 2, "{errors:?}");
        assert!(errors[0].message.contains("cut off"));
        assert!(errors[1].message.contains("no locals"));
        assert_eq!(parsed.steps.len(), 2);
        assert_eq!(parsed.steps[0].state.event, TextEvent::Return);
        assert!(parsed.ended);

        // A broken action drops only its step.
        let broken = printed.replacen("<|step_over|>", "<|step_over|>junk", 1);
        let (parsed, errors) = parse_trajectory(&broken);
        assert_eq!(errors.len(), 1, "{errors:?}");
        assert_eq!(parsed.steps.len(), 3);
        assert_eq!(&broken[errors[0].offset..errors[0].offset + 4], "junk");
    }

    #[test]
    fn structural_errors_are_reported() {
        let cases = [
            ("", "expected `<|trace_context_start|>`"),
            ("<|trace_context_start|>x", "missing `<|frame_sep|>`"),
            ("<|trace_context_start|>x\n<|frame_sep|>", "event marker"),
            ("<|trace_context_start|>x\n<|frame_sep|><|exit_normal|><|action_sep|><|step_into|>", "without the state"),
            ("<|trace_context_start|>x\n<|frame_sep|><|exit_normal|><|frame_sep|><|exit_normal|>", "missing `<|action_sep|>`"),
            ("<|trace_context_start|>x\n<|frame_sep|><|exit_normal|><|trace_end|><|frame_sep|><|exit_normal|>", "before the last frame"),
            ("<|trace_context_start|>x\n<|frame_sep|><|exit_normal|><|trace_end|>more", "after `<|trace_end|>`"),
            ("<|trace_context_start|>x\n<|frame_sep|><|exit_normal|><|action_sep|><|step_into|><|trace_end|>", "right after an action"),
            ("<|trace_context_start|>x\n<|frame_sep|><|exit_normal|><|action_sep|><|step_into|><|action_sep|><|step_into|>\n<|frame_sep|><|exit_normal|>", "second"),
            ("<|trace_context_start|>x\n<|frame_sep|><|exit_normal|>junk", "unexpected text `junk`"),
            ("<|trace_context_start|>x\n<|frame_sep|><|line_sep|><|src_sep|>a<|arg_sep|>{}", "expected `<|arg_sep|>`"),
            ("<|trace_context_start|>x\n<|frame_sep|><|call_sep|><|src_sep|>a\nb<|arg_sep|>{}", "more than one line"),
            ("<|trace_context_start|>x\n<|frame_sep|><|exit_normal|><|action_sep|><|breakpoint|>a<|arg_sep|>x\n<|frame_sep|><|exit_normal|>", "occurrence"),
            ("<|trace_context_start|>x\n<|frame_sep|><|exit_normal|><|action_sep|><|unknown|>\n<|frame_sep|><|exit_normal|>", "expected an action"),
            ("<|trace_context_start|>x\n<|frame_sep|><|step_into|>", "event marker"),
        ];
        for (text, expected) in cases {
            let (_, errors) = parse_trajectory(text);
            assert!(
                errors.iter().any(|error| error.message.contains(expected)),
                "{text:?}: {errors:?}"
            );
            for error in &errors {
                assert!(error.offset <= text.len(), "{text:?}: {error:?}");
            }
        }
    }

    #[test]
    fn parse_state_ignores_what_follows_the_state() {
        let text =
            r#"<|frame_sep|><|return_sep|><|src_sep|>  return n  <|arg_sep|>"5"<|trace_end|>junk"#;
        let (parsed, delta, errors) = parse_state(text, None);
        assert_eq!(errors, vec![]);
        assert!(!delta);
        assert_eq!(
            parsed,
            Some(state(TextEvent::Return, false, "return n", &[], Some("5")))
        );
        let (parsed, _, errors) = parse_state("<|exit_never|><|frame_sep|>x", None);
        assert_eq!(errors, vec![]);
        assert_eq!(parsed.unwrap().event, TextEvent::ExitNever);
    }

    #[test]
    fn unknown_tokens_are_text() {
        let text = "<|call_sep|><|src_sep|>x = '<|nope|>'<|arg_sep|>{}";
        let (parsed, _, errors) = parse_state(text, None);
        assert_eq!(errors, vec![]);
        assert_eq!(parsed.unwrap().src, "x = '<|nope|>'");
        assert!(contains_special_token("a<|frame_sep|>b"));
        assert!(!contains_special_token("a<|nope|>b"));
    }
}

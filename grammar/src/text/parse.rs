//! The lexer (special tokens and the text between them) and the parser
//! that never panics: everything it could read plus one error per broken
//! part.

use super::*;
use crate::state::Locals;
use crate::trajectory::{TextAction, TextEvent, TextState, TextStep, TextTrajectory};

// ---------------------------------------------------------------------------
// Lexer: the text split into special tokens and the text between them.

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Piece {
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
pub(super) fn lex(text: &str) -> Vec<Piece> {
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
pub(super) struct Pieces<'a> {
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

/// Source text after a `<|breakpoint|>`: trimmed, one line.
pub(super) fn parse_src(text: &str, offset: usize) -> Result<String, ParseError> {
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

/// Source text after a state's `<|src_sep|>`: one line exactly as written,
/// indentation and trailing spaces included (the printer writes the file's
/// line, and a prompt must give it back the same way). Only a line break
/// and what surrounds it before or after the text are layout; text that is
/// all whitespace is no text.
pub(super) fn parse_state_src(text: &str, offset: usize) -> Result<String, ParseError> {
    if text.trim().is_empty() {
        return Ok(String::new());
    }
    let leading = text.len() - text.trim_start().len();
    let start = text[..leading].rfind(['\n', '\r']).map_or(0, |at| at + 1);
    let content_end = text.trim_end().len();
    let end = text[content_end..]
        .find(['\n', '\r'])
        .map_or(text.len(), |at| content_end + at);
    let src = &text[start..end];
    if let Some(at) = src.find(['\n', '\r']) {
        return Err(ParseError::new(
            offset + start + at,
            "source text spans more than one line (a `<|...|>` separator is missing?)",
        ));
    }
    Ok(src.to_string())
}

// ---------------------------------------------------------------------------
// State and action parsers.

/// Parses the pieces of one state (from its event token to just before the
/// `<|action_sep|>`, `<|trace_end|>` or `<|frame_sep|>` that ends it).
/// Returns the state and whether its locals were written as a delta.
pub(super) fn parse_state_pieces(
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
            state.src = parse_state_src(text, offset)?;
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
pub(super) fn parse_action_pieces(view: Pieces<'_>) -> Result<TextAction, ParseError> {
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
pub(super) fn placeholder_state() -> TextState {
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
                previous_locals = delta_base(&state).cloned();
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

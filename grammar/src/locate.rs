//! Where a state written in the text language is in the file: the text
//! language names stops by source text, not line numbers, so a predicted
//! state is placed back on a line (and given a depth) by following the
//! frames the session has entered and left.
//!
//! Functions are found from indentation alone (no parser: the source may be
//! half typed). The rules, in order:
//!
//! - An exit has no line and empties the stack.
//! - A forward call state opens a new frame on top of the current one (after
//!   closing the current frame when the previous state was its return); its
//!   line is the function's first line (the first decorator when decorated,
//!   as Python reports calls). An inverse call state is the current frame's
//!   own call.
//! - Any other state is searched for in the frames on the stack, innermost
//!   first (skipping a frame that has just returned): the first frame whose
//!   function holds a line with the state's text is where it stops, and the
//!   frames above it are closed. Within that function the nearest such line
//!   after the frame's last line wins (before it, going backwards), wrapping
//!   around for loops. A state found in no open frame is in a function called
//!   from the current one: a new frame.
//! - Depth is the frame's index on the stack: the entry call has depth 0.

use crate::action::Action;
use crate::source::Source;
use crate::state::{EventKind, StateView};
use crate::trajectory::{TextEvent, TextState};

/// A function of the source, as plain data: the Python reader
/// (`ndb_inference::python`, tree-sitter) finds them; the grammar only
/// reads them.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct FunctionSpan {
    pub name: String,
    /// The first decorator's line, or the `def` line (what Python reports
    /// for the call event).
    pub first_line: u32,
    /// The `def` line.
    pub def_line: u32,
    /// The first line after the header (which may span lines).
    pub body_line: u32,
    /// The last non-blank line of the body.
    pub end_line: u32,
    /// Columns of indentation of the `def`.
    pub indent: usize,
}

impl FunctionSpan {
    /// The span of a function whose header is one line (the body starts on
    /// the next): how tests and fixtures write spans as data.
    pub fn one_line_header(
        name: &str,
        first_line: u32,
        def_line: u32,
        end_line: u32,
        indent: usize,
    ) -> FunctionSpan {
        FunctionSpan {
            name: name.to_string(),
            first_line,
            def_line,
            body_line: def_line + 1,
            end_line,
            indent,
        }
    }

    /// Whether `line` is a statement of this function's body (or of a
    /// function nested in it). The `def` line itself is a statement of the
    /// enclosing code.
    pub fn contains(&self, line: u32) -> bool {
        (self.body_line..=self.end_line).contains(&line)
    }
}

/// The name a `def` line defines, such as `f` in `    async def f(x):`.
pub fn def_name(text: &str) -> Option<&str> {
    let trimmed = text.trim_start();
    let rest = trimmed
        .strip_prefix("async ")
        .map(str::trim_start)
        .unwrap_or(trimmed)
        .strip_prefix("def ")?
        .trim_start();
    let end = rest
        .find(|c: char| !(c.is_alphanumeric() || c == '_'))
        .unwrap_or(rest.len());
    (end > 0).then(|| &rest[..end])
}

/// The innermost function holding `line`.
pub fn enclosing_function(spans: &[FunctionSpan], line: u32) -> Option<usize> {
    spans
        .iter()
        .enumerate()
        .filter(|(_, span)| span.contains(line))
        .max_by_key(|(_, span)| span.indent)
        .map(|(index, _)| index)
}

/// The first top-level (or else any) function named `name`.
pub fn find_function(spans: &[FunctionSpan], name: &str) -> Option<usize> {
    let mut named = spans
        .iter()
        .enumerate()
        .filter(|(_, span)| span.name == name);
    let first = named.clone().next().map(|(index, _)| index);
    named
        .find(|(_, span)| span.indent == 0)
        .map(|(index, _)| index)
        .or(first)
}

/// The line a function returns from, as a CruxEval-style question sees it:
/// its last `return` statement outside nested functions, or else its last
/// line.
pub fn return_line(source: &Source, function: usize) -> u32 {
    let spans = source.spans();
    let span = &spans[function];
    (span.body_line..=span.end_line)
        .rev()
        .find(|&line| {
            let text = source.line(line).trim_start();
            (text == "return" || text.starts_with("return ") || text.starts_with("return("))
                && enclosing_function(spans, line) == Some(function)
        })
        .unwrap_or(span.end_line)
}

/// One open frame: its function and its latest line.
#[derive(Clone, Debug, PartialEq, Eq)]
struct Frame {
    function: Option<usize>,
    line: u32,
}

/// The frames open at a state, replayed from a session's states.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Stack {
    frames: Vec<Frame>,
    /// The previous state was the top frame's return (or an exception
    /// leaving it, going forward).
    top_returned: bool,
}

/// Places text states on lines, frame by frame.
pub struct Locator<'a> {
    source: &'a Source,
}

impl<'a> Locator<'a> {
    /// A locator over `source` and its functions.
    pub fn new(source: &'a Source) -> Locator<'a> {
        Locator { source }
    }

    pub fn spans(&self) -> &'a [FunctionSpan] {
        self.source.spans()
    }

    /// The stack at a session's first state, known exactly (line and depth
    /// from a real view, or the entry function's call).
    pub fn start(&self, view: Option<&StateView>) -> Stack {
        match view {
            Some(StateView::Event { kind, line, .. }) => {
                let function = match kind {
                    EventKind::Call => self
                        .spans()
                        .iter()
                        .position(|span| span.first_line == *line),
                    _ => None,
                }
                .or_else(|| enclosing_function(self.spans(), *line));
                Stack {
                    frames: vec![Frame {
                        function,
                        line: *line,
                    }],
                    top_returned: matches!(kind, EventKind::Return),
                }
            }
            _ => Stack::default(),
        }
    }

    /// Places `state`, reached by `action` from the stack's top, and returns
    /// its view (`None` for the inverse exit) and the stack after it.
    pub fn place(
        &self,
        stack: &Stack,
        action: Action,
        state: &TextState,
    ) -> (Option<StateView>, Stack) {
        let backward = action.is_inverse();
        let mut frames = stack.frames.clone();
        let exit = |status| {
            (
                Some(StateView::Exit {
                    status,
                    value: None,
                }),
                Stack::default(),
            )
        };
        match state.event {
            TextEvent::ExitNormal => return exit(crate::state::ExitStatus::Normal),
            TextEvent::ExitError => return exit(crate::state::ExitStatus::Error),
            TextEvent::ExitNever => return exit(crate::state::ExitStatus::Never),
            TextEvent::ExitEntry => return (None, Stack::default()),
            _ => {}
        }
        let kind = match state.event {
            TextEvent::Call => EventKind::Call,
            TextEvent::Return => EventKind::Return,
            TextEvent::Exception => EventKind::Exception,
            _ => EventKind::Line,
        };
        let (frame_index, line) = if state.event == TextEvent::Call {
            let function = self.function_of_def(&state.src, &frames);
            let line = function.map_or(0, |index| self.spans()[index].first_line);
            if backward && !frames.is_empty() {
                // The current frame's own call.
                let top = frames.len() - 1;
                frames[top] = Frame { function, line };
                (top, line)
            } else {
                if stack.top_returned {
                    frames.pop();
                }
                frames.push(Frame { function, line });
                (frames.len() - 1, line)
            }
        } else {
            let candidates = self.lines_with_text(&state.src);
            let skip_top = stack.top_returned && !backward;
            let searchable = frames.len() - usize::from(skip_top && !frames.is_empty());
            let found = (0..searchable).rev().find_map(|index| {
                let frame = &frames[index];
                let inside: Vec<u32> = candidates
                    .iter()
                    .copied()
                    .filter(|&line| enclosing_function(self.spans(), line) == frame.function)
                    .collect();
                nearest(&inside, frame.line, backward).map(|line| (index, line))
            });
            match found {
                Some((index, line)) => {
                    frames.truncate(index + 1);
                    frames[index].line = line;
                    (index, line)
                }
                None => {
                    if skip_top {
                        frames.pop();
                    }
                    let line = candidates.first().copied().unwrap_or(0);
                    frames.push(Frame {
                        function: enclosing_function(self.spans(), line),
                        line,
                    });
                    (frames.len() - 1, line)
                }
            }
        };
        let returned = kind == EventKind::Return || (kind == EventKind::Exception && !backward);
        let has_locals = matches!(kind, EventKind::Call | EventKind::Line);
        let view = StateView::Event {
            kind,
            line,
            depth: frame_index as u32,
            locals: has_locals.then(|| state.locals.clone()),
            value: if has_locals {
                None
            } else {
                state.value.clone()
            },
        };
        (
            Some(view),
            Stack {
                frames,
                top_returned: returned && kind == EventKind::Return,
            },
        )
    }

    /// The function whose `def` line has this text, preferring one nested
    /// in an open frame's function, then a top-level one.
    fn function_of_def(&self, src: &str, frames: &[Frame]) -> Option<usize> {
        let target = src.trim();
        let matching: Vec<usize> = (0..self.spans().len())
            .filter(|&index| self.source.line(self.spans()[index].def_line).trim() == target)
            .collect();
        frames
            .iter()
            .rev()
            .find_map(|frame| {
                matching.iter().copied().find(|&index| {
                    let span = &self.spans()[index];
                    frame.function.is_some_and(|outer| {
                        let outer = &self.spans()[outer];
                        outer.contains(span.def_line) && outer.def_line != span.def_line
                    })
                })
            })
            .or_else(|| {
                matching
                    .iter()
                    .copied()
                    .find(|&index| self.spans()[index].indent == 0)
            })
            .or_else(|| matching.first().copied())
    }

    fn lines_with_text(&self, src: &str) -> Vec<u32> {
        let target = src.trim();
        self.source
            .lines()
            .enumerate()
            .filter(|(_, text)| text.trim() == target && !target.is_empty())
            .map(|(index, _)| index as u32 + 1)
            .collect()
    }

    pub fn source(&self) -> &'a Source {
        self.source
    }
}

/// The candidate nearest after `from` (going forward, `from` itself
/// included) or before it (backward), wrapping around.
fn nearest(candidates: &[u32], from: u32, backward: bool) -> Option<u32> {
    if backward {
        candidates
            .iter()
            .copied()
            .filter(|&line| line <= from)
            .max()
            .or_else(|| candidates.iter().copied().max())
    } else {
        candidates
            .iter()
            .copied()
            .filter(|&line| line >= from)
            .min()
            .or_else(|| candidates.iter().copied().min())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const SOURCE: &str = "\
import math

@decorator
def outer(xs):
    total = 0
    for x in xs:
        total += helper(x)
    return total

def helper(x):
    def inner(y):
        return y * 2
    return inner(x)
";

    /// SOURCE's functions as the Python reader finds them (the inference
    /// crate's tests hold the reader to these spans).
    fn spans() -> Vec<FunctionSpan> {
        let span = FunctionSpan::one_line_header;
        vec![
            span("outer", 3, 4, 8, 0),
            span("helper", 10, 10, 13, 0),
            span("inner", 11, 11, 12, 4),
        ]
    }

    #[test]
    fn finds_enclosing_functions_and_return_lines_from_spans() {
        let spans = spans();
        assert_eq!(enclosing_function(&spans, 12), Some(2));
        assert_eq!(enclosing_function(&spans, 13), Some(1));
        assert_eq!(enclosing_function(&spans, 1), None);
        let source = Source::new(SOURCE, spans);
        assert_eq!(return_line(&source, 0), 8);
        assert_eq!(return_line(&source, 1), 13);
        assert_eq!(def_name("async def  go_2(x):"), Some("go_2"));
        assert_eq!(def_name("define(x)"), None);
    }

    fn state(event: TextEvent, src: &str) -> TextState {
        TextState {
            event,
            inverse: false,
            src: src.to_string(),
            locals: Vec::new(),
            value: None,
        }
    }

    fn line_and_depth(view: &Option<StateView>) -> (u32, u32) {
        match view {
            Some(StateView::Event { line, depth, .. }) => (*line, *depth),
            other => panic!("not an event: {other:?}"),
        }
    }

    #[test]
    fn follows_frames_into_and_out_of_calls() {
        let source = Source::new(SOURCE, spans());
        let locator = Locator::new(&source);
        let start = StateView::Event {
            kind: EventKind::Call,
            line: 3,
            depth: 0,
            locals: Some(Vec::new()),
            value: None,
        };
        let mut stack = locator.start(Some(&start));
        let steps = [
            (
                Action::StepOver,
                state(TextEvent::Line, "total = 0"),
                (5, 0),
            ),
            (
                Action::StepOver,
                state(TextEvent::Line, "for x in xs:"),
                (6, 0),
            ),
            (
                Action::StepOver,
                state(TextEvent::Line, "total += helper(x)"),
                (7, 0),
            ),
            (
                Action::StepInto,
                state(TextEvent::Call, "def helper(x):"),
                (10, 1),
            ),
            (
                Action::StepInto,
                state(TextEvent::Line, "def inner(y):"),
                (11, 1),
            ),
            (
                Action::StepInto,
                state(TextEvent::Line, "return inner(x)"),
                (13, 1),
            ),
            (
                Action::StepInto,
                state(TextEvent::Call, "def inner(y):"),
                (11, 2),
            ),
            (
                Action::StepInto,
                state(TextEvent::Line, "return y * 2"),
                (12, 2),
            ),
            (
                Action::StepInto,
                state(TextEvent::Return, "return y * 2"),
                (12, 2),
            ),
            (
                Action::StepInto,
                state(TextEvent::Return, "return inner(x)"),
                (13, 1),
            ),
            (
                Action::StepInto,
                state(TextEvent::Line, "for x in xs:"),
                (6, 0),
            ),
            (
                Action::StepReturn,
                state(TextEvent::Return, "return total"),
                (8, 0),
            ),
        ];
        for (action, text, expected) in steps {
            let (view, next) = locator.place(&stack, action, &text);
            assert_eq!(
                line_and_depth(&view),
                expected,
                "{action:?} to {}",
                text.src
            );
            stack = next;
        }
        let (view, stack) =
            locator.place(&stack, Action::StepInto, &state(TextEvent::ExitNormal, ""));
        assert!(matches!(view, Some(StateView::Exit { .. })));
        assert_eq!(stack, Stack::default());
    }

    #[test]
    fn a_breakpoint_in_a_callee_opens_a_frame_and_inverse_steps_go_back() {
        let source = Source::new(SOURCE, spans());
        let locator = Locator::new(&source);
        let start = StateView::Event {
            kind: EventKind::Call,
            line: 3,
            depth: 0,
            locals: Some(Vec::new()),
            value: None,
        };
        let stack = locator.start(Some(&start));
        let (view, stack) = locator.place(
            &stack,
            Action::Breakpoint(12),
            &state(TextEvent::Line, "return y * 2"),
        );
        assert_eq!(line_and_depth(&view), (12, 1));
        let (view, _) = locator.place(
            &stack,
            Action::InvStepCall,
            &TextState {
                inverse: true,
                ..state(TextEvent::Call, "def inner(y):")
            },
        );
        assert_eq!(line_and_depth(&view), (11, 1));
    }
}

//! States of a debugger: the events a tracer records, the run's exit, and the
//! plain view of one stop that every front end prints.

/// A frame's local variables, name to bounded `repr()` text, in the order the
/// frame's `f_locals` lists them (arguments first).
pub type Locals = Vec<(String, String)>;

/// The kind of a recorded event, as `sys.settrace` reports it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum EventKind {
    Call,
    Line,
    Return,
    Exception,
}

impl EventKind {
    pub fn as_str(self) -> &'static str {
        match self {
            EventKind::Call => "call",
            EventKind::Line => "line",
            EventKind::Return => "return",
            EventKind::Exception => "exception",
        }
    }

    pub fn parse(text: &str) -> Option<EventKind> {
        match text {
            "call" => Some(EventKind::Call),
            "line" => Some(EventKind::Line),
            "return" => Some(EventKind::Return),
            "exception" => Some(EventKind::Exception),
            _ => None,
        }
    }
}

/// How a run ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum ExitStatus {
    /// The entry call returned.
    Normal,
    /// An exception escaped the entry call (or the process died).
    Error,
    /// A limit (events, time, memory, output) cut the run off.
    Never,
}

impl ExitStatus {
    pub fn as_str(self) -> &'static str {
        match self {
            ExitStatus::Normal => "normal",
            ExitStatus::Error => "error",
            ExitStatus::Never => "never",
        }
    }

    pub fn parse(text: &str) -> Option<ExitStatus> {
        match text {
            "normal" => Some(ExitStatus::Normal),
            "error" => Some(ExitStatus::Error),
            "never" => Some(ExitStatus::Never),
            _ => None,
        }
    }
}

/// One event of one frame of the traced file.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Event {
    pub kind: EventKind,
    /// 1-based line number (`frame.f_lineno`).
    pub line: u32,
    /// Number of frames of the traced file below this one on the stack: the
    /// entry call has depth 0.
    pub depth: u32,
    /// A serial number of the frame object, unique within one run. A
    /// generator keeps its frame across resumptions.
    pub frame: u32,
    /// The serial of the calling frame when it belongs to the traced file.
    pub parent_frame: Option<u32>,
    /// `co_name` of the frame's code object.
    pub function: String,
    /// The frame runs a generator or coroutine (pdb treats those specially).
    pub generator: bool,
    /// The frame's locals at this event.
    pub locals: Locals,
    /// The returned value (return) or the raised exception (exception).
    pub value: Option<String>,
    /// For exception events: the exception's class name.
    pub exception_type: Option<String>,
    /// For exception events: the traceback was `None` (CPython's internal
    /// `StopIteration` of `yield from`, which pdb skips).
    pub traceback_is_none: bool,
}

/// The end of a recorded run.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Exit {
    pub status: ExitStatus,
    /// The entry call's return value (normal) or the escaping exception
    /// (error), as bounded `repr()` text.
    pub value: Option<String>,
    /// Why the run was cut off or died, for people (never shown to the model).
    pub reason: Option<String>,
}

/// A whole recorded run of one entry call.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Trace {
    /// The traced file's source text.
    pub source: String,
    /// The entry call, such as `f([1, 2], k=3)`.
    pub entry_call: String,
    pub events: Vec<Event>,
    pub exit: Exit,
    /// What the program printed, bounded.
    pub stdout: String,
}

/// The plain view of one debugger stop: what `ndb step --format json` prints
/// and what the model must predict.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum StateView {
    Event {
        kind: EventKind,
        line: u32,
        depth: u32,
        /// Present for call and line stops.
        locals: Option<Locals>,
        /// Present for return and exception stops.
        value: Option<String>,
    },
    Exit {
        status: ExitStatus,
        value: Option<String>,
    },
}

impl StateView {
    pub fn of_event(event: &Event) -> StateView {
        let has_locals = matches!(event.kind, EventKind::Call | EventKind::Line);
        StateView::Event {
            kind: event.kind,
            line: event.line,
            depth: event.depth,
            locals: has_locals.then(|| event.locals.clone()),
            value: if has_locals {
                None
            } else {
                event.value.clone()
            },
        }
    }

    pub fn of_exit(exit: &Exit) -> StateView {
        StateView::Exit {
            status: exit.status,
            value: exit.value.clone(),
        }
    }
}

/// The 1-based line `line` of `source`, without its line ending; empty when
/// out of range.
pub fn source_line(source: &str, line: u32) -> &str {
    match line.checked_sub(1) {
        Some(index) => source_lines(source).nth(index as usize).unwrap_or(""),
        None => "",
    }
}

/// The lines of `source` without their line endings (also a lone `\r`).
pub fn source_lines(source: &str) -> impl Iterator<Item = &str> {
    source
        .lines()
        .map(|text| text.strip_suffix('\r').unwrap_or(text))
}

/// The text a call state shows: the `def` line of the function whose call
/// event is at `line`. Python reports a decorated function's call at its first
/// decorator, so decorator lines are skipped.
pub fn call_source_line(source: &str, line: u32) -> &str {
    call_line_of(|number| source_line(source, number), line)
}

/// [`call_source_line`] over any reading of 1-based lines.
pub(crate) fn call_line_of<'a>(line_text: impl Fn(u32) -> &'a str, line: u32) -> &'a str {
    let text = line_text(line);
    if !text.trim_start().starts_with('@') {
        return text;
    }
    (line + 1..line + 64)
        .map(&line_text)
        .find(|candidate| {
            let trimmed = candidate.trim_start();
            trimmed.starts_with("def ") || trimmed.starts_with("async def ")
        })
        .unwrap_or(text)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn call_line_skips_decorators() {
        let source = "@dec\n@other(1)\ndef f(x):\n    return x\n";
        assert_eq!(call_source_line(source, 1), "def f(x):");
        assert_eq!(call_source_line(source, 3), "def f(x):");
        assert_eq!(source_line(source, 4), "    return x");
        assert_eq!(source_line(source, 9), "");
    }
}

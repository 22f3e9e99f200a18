//! The tracing script's protocol, one JSON object per line (the module
//! documentation of [`super`] gives their order), decoded with serde into
//! typed lines. The wire types mirror what `ndb_tracer.py` writes; the
//! grammar's types ([`Event`], [`Exit`]) stay free of serde.

use ndb_grammar::{Event, EventKind, Exit, ExitStatus, Locals};
use serde::Deserialize;

use super::BoundCall;

/// One line of the protocol.
#[derive(Debug)]
pub(super) enum ProtocolLine {
    Ready,
    Start,
    Event(Event),
    Exit { exit: Exit, stdout: String },
    Error { kind: String, message: String },
    Binding(BoundCall),
}

/// A line that is not the protocol: what serde found wrong, and the line's
/// first 200 characters.
#[derive(Debug, thiserror::Error)]
#[error("{source} in line {excerpt}")]
pub(super) struct MalformedLine {
    source: serde_json::Error,
    excerpt: String,
}

#[derive(Deserialize)]
#[serde(tag = "type", rename_all = "lowercase")]
enum WireLine {
    Ready,
    Start,
    Event(WireEvent),
    Exit {
        status: WireStatus,
        value: Option<String>,
        reason: Option<String>,
        stdout: Option<String>,
    },
    Error {
        kind: String,
        message: String,
    },
    Binding {
        function: String,
        line: u32,
        /// `[name, repr]` pairs.
        locals: Locals,
    },
}

#[derive(Deserialize)]
struct WireEvent {
    kind: WireKind,
    line: u32,
    depth: u32,
    frame: u32,
    parent: Option<u32>,
    function: String,
    generator: bool,
    locals: Locals,
    value: Option<String>,
    exception_type: Option<String>,
    traceback_is_none: bool,
}

#[derive(Deserialize)]
#[serde(rename_all = "lowercase")]
enum WireKind {
    Call,
    Line,
    Return,
    Exception,
}

#[derive(Deserialize)]
#[serde(rename_all = "lowercase")]
enum WireStatus {
    Normal,
    Error,
    Never,
}

/// Decodes one line (its newline included or not).
pub(super) fn parse_line(bytes: &[u8]) -> Result<ProtocolLine, MalformedLine> {
    let wire: WireLine = serde_json::from_slice(bytes).map_err(|source| MalformedLine {
        source,
        excerpt: excerpt(bytes),
    })?;
    Ok(match wire {
        WireLine::Ready => ProtocolLine::Ready,
        WireLine::Start => ProtocolLine::Start,
        WireLine::Event(event) => ProtocolLine::Event(Event {
            kind: match event.kind {
                WireKind::Call => EventKind::Call,
                WireKind::Line => EventKind::Line,
                WireKind::Return => EventKind::Return,
                WireKind::Exception => EventKind::Exception,
            },
            line: event.line,
            depth: event.depth,
            frame: event.frame,
            parent_frame: event.parent,
            function: event.function,
            generator: event.generator,
            locals: event.locals,
            value: event.value,
            exception_type: event.exception_type,
            traceback_is_none: event.traceback_is_none,
        }),
        WireLine::Exit {
            status,
            value,
            reason,
            stdout,
        } => ProtocolLine::Exit {
            exit: Exit {
                status: match status {
                    WireStatus::Normal => ExitStatus::Normal,
                    WireStatus::Error => ExitStatus::Error,
                    WireStatus::Never => ExitStatus::Never,
                },
                value,
                reason,
            },
            stdout: stdout.unwrap_or_default(),
        },
        WireLine::Error { kind, message } => ProtocolLine::Error { kind, message },
        WireLine::Binding {
            function,
            line,
            locals,
        } => ProtocolLine::Binding(BoundCall {
            function,
            line,
            locals,
        }),
    })
}

fn excerpt(bytes: &[u8]) -> String {
    let text = String::from_utf8_lossy(bytes);
    let text = text.trim_end();
    match text.char_indices().nth(200) {
        Some((cut, _)) => format!("{}...", &text[..cut]),
        None => text.to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_an_event_line() {
        let line = br#"{"type":"event","kind":"exception","line":3,"depth":1,"frame":2,"parent":1,"function":"f","generator":false,"locals":[["x","1"]],"value":"ValueError('a')","exception_type":"ValueError","traceback_is_none":false}
"#;
        let Ok(ProtocolLine::Event(event)) = parse_line(line) else {
            panic!("not an event");
        };
        assert_eq!(event.kind, EventKind::Exception);
        assert_eq!(
            (event.line, event.depth, event.frame, event.parent_frame),
            (3, 1, 2, Some(1))
        );
        assert_eq!(event.locals, vec![("x".to_string(), "1".to_string())]);
        assert_eq!(event.exception_type.as_deref(), Some("ValueError"));
    }

    #[test]
    fn a_top_level_frame_has_no_parent() {
        let line = br#"{"type":"event","kind":"call","line":1,"depth":0,"frame":1,"parent":null,"function":"f","generator":false,"locals":[],"value":null,"exception_type":null,"traceback_is_none":true}"#;
        let Ok(ProtocolLine::Event(event)) = parse_line(line) else {
            panic!("not an event");
        };
        assert_eq!(event.parent_frame, None);
    }

    #[test]
    fn parses_a_binding_line() {
        let line = br#"{"type":"binding","function":"f","line":4,"locals":[["x","1"],["ys","[2]"]]}
"#;
        let Ok(ProtocolLine::Binding(binding)) = parse_line(line) else {
            panic!("not a binding");
        };
        assert_eq!((binding.function.as_str(), binding.line), ("f", 4));
        assert_eq!(binding.locals[1], ("ys".to_string(), "[2]".to_string()));
        assert!(parse_line(br#"{"type":"binding","function":"f","line":-1,"locals":[]}"#).is_err());
    }

    #[test]
    fn parses_an_exit_line_without_stdout() {
        let Ok(ProtocolLine::Exit { exit, stdout }) =
            parse_line(br#"{"type":"exit","status":"never","value":null,"reason":"time"}"#)
        else {
            panic!("not an exit");
        };
        assert_eq!(exit.status, ExitStatus::Never);
        assert_eq!(exit.reason.as_deref(), Some("time"));
        assert_eq!(stdout, "");
    }

    #[test]
    fn rejects_malformed_lines_and_says_where() {
        for line in [
            &b"not json\n"[..],
            br#"{"type":"event","kind":"jump"}"#,
            br#"{"type":"exit","status":"maybe"}"#,
            br#"{"type":"nonsense"}"#,
            br#"["type","ready"]"#,
            br#"{"type":"binding","function":"f","line":1,"locals":[["x"]]}"#,
        ] {
            let error = parse_line(line).expect_err("malformed");
            let text = error.to_string();
            assert!(text.contains(" in line "), "{text}");
        }
        let long = format!(r#"{{"type":"{}"}}"#, "x".repeat(500));
        let text = parse_line(long.as_bytes()).unwrap_err().to_string();
        assert!(text.ends_with("..."), "{text}");
    }
}

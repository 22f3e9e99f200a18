//! What users ask of a debugger, built on [`Debugger`]: run to a line and read
//! the locals, predict a function's output (by one jump or by a rollout of
//! single steps), suggest inputs for an output, and check a prediction or a
//! suggestion by running it with the real tracer (which runs user code: only
//! when the user asked for it).

use std::sync::Arc;

use ndb_grammar::locate::{def_name, find_function, return_line};

use crate::python::syntax::{Parameter, ParameterKind};
use crate::python::PythonFile;
use ndb_grammar::{Action, EventKind, ExitStatus, Source, StateView, TextEvent, TextState};

use crate::debugger::{
    Cancel, DebugError, Debugger, IntoSource, Session, State, Step, TracerDebugger,
};
use crate::tracer::trace_source;

/// How an output is predicted from the entry call's first state: the one
/// choice the editor's setting, the agent tools' `mode` and `ndb eval
/// --mode` name (serde and [`FromStr`](std::str::FromStr) read
/// [`OutputMode::NAMES`]).
#[derive(
    Clone,
    Copy,
    Debug,
    Default,
    PartialEq,
    Eq,
    Hash,
    serde::Serialize,
    serde::Deserialize,
    schemars::JsonSchema,
)]
#[serde(rename_all = "snake_case")]
pub enum OutputMode {
    /// One `step_return` from the call: the model jumps to the function's
    /// return (fast).
    #[default]
    StepReturn,
    /// Run to a breakpoint at the return line, then one step to the return.
    Breakpoint,
    /// `step_over` again and again, each step fed back, until the call
    /// returns (slow, most faithful).
    Rollout,
}

impl OutputMode {
    pub const NAMES: [&'static str; 3] = ["step_return", "breakpoint", "rollout"];

    pub fn name(self) -> &'static str {
        match self {
            OutputMode::StepReturn => "step_return",
            OutputMode::Breakpoint => "breakpoint",
            OutputMode::Rollout => "rollout",
        }
    }
}

impl std::str::FromStr for OutputMode {
    type Err = crate::choice::UnknownChoice;

    fn from_str(text: &str) -> Result<OutputMode, Self::Err> {
        [
            OutputMode::StepReturn,
            OutputMode::Breakpoint,
            OutputMode::Rollout,
        ]
        .into_iter()
        .find(|mode| mode.name() == text)
        .ok_or_else(|| {
            crate::choice::UnknownChoice::new("output mode", text, OutputMode::NAMES.join(", "))
        })
    }
}

/// The most steps a rollout takes before it gives up.
pub const MAX_ROLLOUT_STEPS: usize = 200;

/// A predicted output.
#[derive(Clone, Debug, PartialEq)]
pub struct OutputPrediction {
    /// The returned value's repr, or the escaping exception's; `None` when
    /// the prediction never reached the function's end.
    pub value: Option<String>,
    /// The value is an exception that escapes the function.
    pub raised: bool,
    /// The state the value was read from (for an escaping exception, the
    /// function's last stop, where it left).
    pub state: State,
    /// Every state on the way.
    pub session: Session,
}

fn new_session(source: &Arc<Source>, entry_call: Option<&str>, start: State) -> Session {
    Session {
        source: source.clone(),
        entry_call: entry_call.map(str::to_string),
        start,
        steps: Vec::new(),
    }
}

fn step(
    debugger: &dyn Debugger,
    session: &mut Session,
    action: Action,
    cancel: &Cancel,
) -> Result<(), DebugError> {
    let state = debugger.next(session, action, cancel)?;
    session.steps.push(Step { action, state });
    Ok(())
}

fn depth_and_kind(state: &State) -> Option<(u32, EventKind)> {
    match &state.view {
        Some(StateView::Event { kind, depth, .. }) => Some((*depth, *kind)),
        _ => None,
    }
}

fn is_exit(state: &State) -> bool {
    matches!(
        state.text.event,
        TextEvent::ExitNormal | TextEvent::ExitError | TextEvent::ExitNever | TextEvent::ExitEntry
    )
}

/// The function a session's first (call) state belongs to.
fn entry_function(source: &Source, start: &State) -> Result<usize, DebugError> {
    let spans = source.spans();
    let line = match &start.view {
        Some(StateView::Event { line, .. }) => *line,
        _ => 0,
    };
    let index = spans
        .iter()
        .position(|span| span.first_line == line)
        .or_else(|| def_name(&start.text.src).and_then(|name| find_function(spans, name)))
        .ok_or(DebugError::NoFunctionAt { line })?;
    Ok(index)
}

/// Predicts what `entry_call` returns, by `mode`.
pub fn predict_output(
    debugger: &dyn Debugger,
    source: impl IntoSource,
    entry_call: &str,
    mode: OutputMode,
    cancel: &Cancel,
) -> Result<OutputPrediction, DebugError> {
    let source = &source.into_source();
    let start = debugger.start(source, entry_call, cancel)?;
    let mut session = new_session(source, Some(entry_call), start);
    match mode {
        OutputMode::StepReturn => step(debugger, &mut session, Action::StepReturn, cancel)?,
        OutputMode::Breakpoint => {
            let index = entry_function(source, &session.start)?;
            let line = return_line(source, index);
            step(debugger, &mut session, Action::Breakpoint(line), cancel)?;
            if matches!(
                depth_and_kind(session.current()),
                Some((_, EventKind::Line))
            ) {
                step(debugger, &mut session, Action::StepOver, cancel)?;
            }
        }
        OutputMode::Rollout => roll(debugger, &mut session, MAX_ROLLOUT_STEPS, cancel)?,
    }
    let mut located = None;
    // pdb's return stop after an escaping exception shows `None`: one more
    // step from the entry function's return tells a raise (an error exit)
    // from a real `None`.
    if matches!(
        depth_and_kind(session.current()),
        Some((0, EventKind::Return))
    ) && session
        .current()
        .text
        .value
        .as_deref()
        .is_none_or(|v| v == "None")
    {
        let returned = session.current().clone();
        step(debugger, &mut session, Action::StepInto, cancel)?;
        if session.current().text.event == TextEvent::ExitError {
            // The value comes from the error exit; the place stays the
            // line the exception left the function from.
            located = Some(returned);
        } else {
            session.steps.pop();
        }
    }
    let state = session.current().clone();
    let (value, raised) = match (&state.view, state.text.event) {
        (
            Some(StateView::Event {
                kind: EventKind::Return,
                ..
            }),
            _,
        ) => (state.text.value.clone(), false),
        (
            Some(StateView::Event {
                kind: EventKind::Exception,
                ..
            }),
            _,
        ) => (state.text.value.clone(), true),
        (
            Some(StateView::Exit {
                status: ExitStatus::Error,
                value,
            }),
            _,
        ) => (value.clone(), true),
        (Some(StateView::Exit { value, .. }), _) => (value.clone(), false),
        _ => (None, false),
    };
    let state = located.unwrap_or(state);
    Ok(OutputPrediction {
        value,
        raised,
        state,
        session,
    })
}

/// Runs to a breakpoint at `line` (1-based) from the entry call's first
/// state; the state there is `session.current()` (an exit when the line is
/// never reached).
pub fn predict_at_line(
    debugger: &dyn Debugger,
    source: impl IntoSource,
    entry_call: &str,
    line: u32,
    cancel: &Cancel,
) -> Result<Session, DebugError> {
    let source = &source.into_source();
    let start = debugger.start(source, entry_call, cancel)?;
    let mut session = new_session(source, Some(entry_call), start);
    step(debugger, &mut session, Action::Breakpoint(line), cancel)?;
    Ok(session)
}

/// `step_over` until the entry function returns or the run ends, at most
/// `max_steps` times.
fn roll(
    debugger: &dyn Debugger,
    session: &mut Session,
    max_steps: usize,
    cancel: &Cancel,
) -> Result<(), DebugError> {
    for _ in 0..max_steps {
        let current = session.current();
        if is_exit(current) || matches!(depth_and_kind(current), Some((0, EventKind::Return))) {
            break;
        }
        step(debugger, session, Action::StepOver, cancel)?;
    }
    Ok(())
}

/// An argument list the model proposed (the suggestion engine,
/// [`crate::suggest`], makes suggestions of these and its own candidates).
#[derive(Clone, Debug, PartialEq)]
pub struct Proposal {
    /// Argument text as it goes between the parentheses: `1, [2, 3]`.
    pub input: String,
    /// How many of the samples proposed it.
    pub votes: usize,
    pub samples: usize,
    /// The output it is meant to give: the one asked for, or the one the
    /// model predicted when none was given.
    pub output: Option<String>,
    /// Checked with the real tracer: `None` until checked, or when the
    /// check could not decide.
    pub verified: Option<bool>,
}

/// The entry call for `function` with argument text `input`.
pub fn entry_call(function: &str, input: &str) -> String {
    format!("{function}({input})")
}

/// Proposes inputs of `function` that give `output` (any output when
/// `None`): `inv_step_call` from the function's return state, `k` samples,
/// duplicates merged, most proposed first. With no output, the model first
/// steps back from the end of the run into the return (`inv_step_into`),
/// proposing the output too.
pub fn suggest_inputs(
    debugger: &dyn Debugger,
    source: impl IntoSource,
    function: &str,
    output: Option<&str>,
    k: usize,
    cancel: &Cancel,
) -> Result<Vec<Proposal>, DebugError> {
    let source = &source.into_source();
    let index = find_function(source.spans(), function).ok_or_else(|| DebugError::NoFunction {
        name: function.to_string(),
    })?;
    let k = k.max(1);
    let line = return_line(source, index);
    let return_text = source.line(line);
    let returns: Vec<(Session, usize)> = match output {
        Some(output) => {
            let start = State {
                text: TextState {
                    event: TextEvent::Return,
                    inverse: true,
                    src: return_text.to_string(),
                    locals: Vec::new(),
                    value: Some(output.to_string()),
                },
                view: Some(StateView::Event {
                    kind: EventKind::Return,
                    line,
                    depth: 0,
                    locals: None,
                    value: Some(output.to_string()),
                }),
                confidence: None,
                note: None,
            };
            vec![(new_session(source, None, start), k)]
        }
        None => {
            let end = State {
                text: TextState {
                    event: TextEvent::ExitNormal,
                    inverse: false,
                    src: String::new(),
                    locals: Vec::new(),
                    value: None,
                },
                view: Some(StateView::Exit {
                    status: ExitStatus::Normal,
                    value: None,
                }),
                confidence: None,
                note: None,
            };
            let end = new_session(source, None, end);
            debugger
                .candidates(&end, Action::InvStepInto, k, cancel)?
                .into_iter()
                .filter(|state| state.text.event == TextEvent::Return)
                .map(|state| {
                    let votes = state.confidence.map_or(1, |c| c.votes);
                    let mut session = end.clone();
                    session.steps.push(Step {
                        action: Action::InvStepInto,
                        state,
                    });
                    (session, votes)
                })
                .collect()
        }
    };
    let parameters = parameters(source, function);
    let mut suggestions: Vec<Proposal> = Vec::new();
    for (session, share) in returns {
        let predicted_output = session.current().text.value.clone();
        // Samples that all fail to parse (or are cut off) propose nothing:
        // a search for inputs goes on with the other returns, if any.
        let proposals = match debugger.candidates(&session, Action::InvStepCall, share, cancel) {
            Ok(states) => states,
            Err(DebugError::Malformed { .. } | DebugError::CutOff { .. }) => continue,
            Err(error) => return Err(error),
        };
        for state in proposals {
            if state.text.event != TextEvent::Call {
                continue;
            }
            // A value that is not even well-formed Python (the grammar
            // allows any text in a value) is no input to offer.
            if !state
                .text
                .locals
                .iter()
                .all(|(_, value)| balanced_literal(value))
            {
                continue;
            }
            let votes = state.confidence.map_or(1, |c| c.votes);
            let input = arguments_text(&parameters, &state.text.locals);
            match suggestions.iter_mut().find(|s| s.input == input) {
                Some(existing) => existing.votes += votes,
                None => suggestions.push(Proposal {
                    input,
                    votes,
                    samples: k,
                    output: predicted_output.clone(),
                    verified: None,
                }),
            }
        }
    }
    suggestions.sort_by_key(|s| std::cmp::Reverse(s.votes));
    Ok(suggestions)
}

/// Whether `text` could be one Python value: its strings end and its
/// brackets pair up, outside strings, and it is not empty. A cheap filter
/// for a model's proposals, not a parser: `[1 2]` passes.
pub fn balanced_literal(text: &str) -> bool {
    let mut open: Vec<char> = Vec::new();
    let mut chars = text.chars();
    while let Some(c) = chars.next() {
        match c {
            '\'' | '"' => {
                let mut closed = false;
                while let Some(inner) = chars.next() {
                    if inner == '\\' {
                        chars.next();
                    } else if inner == c {
                        closed = true;
                        break;
                    }
                }
                if !closed {
                    return false;
                }
            }
            '(' | '[' | '{' => open.push(c),
            ')' | ']' | '}' => {
                let expected = match c {
                    ')' => '(',
                    ']' => '[',
                    _ => '{',
                };
                if open.pop() != Some(expected) {
                    return false;
                }
            }
            _ => {}
        }
    }
    open.is_empty() && !text.trim().is_empty()
}

/// How many positional parameters `function` has (0 when it is not found).
pub fn positional_parameter_count(source: &str, function: &str) -> usize {
    parameters(source, function)
        .iter()
        .filter(|parameter| parameter.kind == ParameterKind::Positional)
        .count()
}

/// The parameters of the module-level function `function`, as the one
/// Python reader finds them (none when it is not found).
pub(crate) fn parameters(source: &str, function: &str) -> Vec<Parameter> {
    parameters_in(&PythonFile::parse(source), function)
}

/// [`parameters`] of a file already read.
pub(crate) fn parameters_in(file: &PythonFile, function: &str) -> Vec<Parameter> {
    file.function(function)
        .map(|index| file.analysis().functions[index].parameters.clone())
        .unwrap_or_default()
}

/// The argument text that binds `locals` (a call state's) to `parameters`.
fn arguments_text(parameters: &[Parameter], locals: &[(String, String)]) -> String {
    let value = |name: &str| {
        locals
            .iter()
            .find(|(local, _)| local == name)
            .map(|(_, value)| value.as_str())
    };
    let mut parts = Vec::new();
    let mut skipped_positional = false;
    for Parameter { name, kind } in parameters {
        match kind {
            ParameterKind::Positional => match value(name) {
                Some(v) if !skipped_positional => parts.push(v.to_string()),
                Some(v) => parts.push(format!("{name}={v}")),
                None => skipped_positional = true,
            },
            ParameterKind::KeywordOnly => {
                if let Some(v) = value(name) {
                    parts.push(format!("{name}={v}"));
                }
            }
            ParameterKind::VarPositional => {
                if let Some(v) = value(name).filter(|v| *v != "()") {
                    parts.push(format!("*{v}"));
                }
            }
            ParameterKind::VarKeyword => {
                if let Some(v) = value(name).filter(|v| *v != "{}") {
                    parts.push(format!("**{v}"));
                }
            }
        }
    }
    if parameters.is_empty() {
        // No header to go by: the locals in order.
        return locals
            .iter()
            .map(|(_, v)| v.as_str())
            .collect::<Vec<_>>()
            .join(", ");
    }
    parts.join(", ")
}

/// A Python string literal holding `text`.
fn python_string(text: &str) -> String {
    let mut out = String::from("'");
    for c in text.chars() {
        match c {
            '\\' => out.push_str("\\\\"),
            '\'' => out.push_str("\\'"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            c if (c as u32) < 0x20 => out.push_str(&format!("\\x{:02x}", c as u32)),
            c => out.push(c),
        }
    }
    out.push('\'');
    out
}

/// Runs `eval(call) == eval(expected)` in the file's module with the real
/// tracer. `None` when that cannot decide (the file itself does not load, or
/// the run is cut off); a call that raises, or text that is not Python, is
/// `false`. Runs user code.
fn check_equal(tracer: &TracerDebugger, source: &str, call: &str, expected: &str) -> Option<bool> {
    let checked = format!(
        "{source}\n\ndef __ndb_check__():\n    return eval({}) == eval({})\n",
        python_string(call),
        python_string(expected)
    );
    match trace_source(&checked, "__ndb_check__()", tracer.config()) {
        Ok(trace) => match (trace.exit.status, trace.exit.value.as_deref()) {
            (ExitStatus::Normal, Some("True")) => Some(true),
            (ExitStatus::Normal, _) => Some(false),
            (ExitStatus::Error, _) => Some(false),
            (ExitStatus::Never, _) => None,
        },
        Err(_) => None,
    }
}

/// Whether `function(input)` gives `output`, by running it (user code).
pub fn verify_input(
    tracer: &TracerDebugger,
    source: &str,
    function: &str,
    input: &str,
    output: &str,
) -> Option<bool> {
    check_equal(tracer, source, &entry_call(function, input), output)
}

/// Whether `entry_call` returns `predicted`, by running it (user code).
pub fn verify_output(
    tracer: &TracerDebugger,
    source: &str,
    entry_call: &str,
    predicted: &str,
) -> Option<bool> {
    check_equal(tracer, source, entry_call, predicted)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn proposed_values_must_at_least_pair_their_brackets_and_quotes() {
        for good in [
            "[2, 7, 10]",
            "'a]b'",
            "{'k': (1, [2])}",
            "\"it's\"",
            "-3",
            "'\\''",
        ] {
            assert!(balanced_literal(good), "{good}");
        }
        for bad in [
            "[2, 7, 7, 10, -1] 1]",
            "'abc",
            "(1, 2",
            "",
            "  ",
            "{1: [2}]",
        ] {
            assert!(!balanced_literal(bad), "{bad}");
        }
    }

    #[test]
    fn parameters_and_arguments_round_trip() {
        let source = "def f(a, b: list[int] = [1, 2], *rest, key='x,y', **options):\n    pass\n";
        let found = parameters(source, "f");
        let parameter = |name: &str, kind| Parameter {
            name: name.to_string(),
            kind,
        };
        assert_eq!(
            found,
            [
                parameter("a", ParameterKind::Positional),
                parameter("b", ParameterKind::Positional),
                parameter("rest", ParameterKind::VarPositional),
                parameter("key", ParameterKind::KeywordOnly),
                parameter("options", ParameterKind::VarKeyword),
            ]
        );
        let locals: Vec<(String, String)> = [
            ("a", "1"),
            ("b", "[3]"),
            ("rest", "(4, 5)"),
            ("key", "'k'"),
            ("options", "{}"),
        ]
        .iter()
        .map(|(n, v)| (n.to_string(), v.to_string()))
        .collect();
        assert_eq!(arguments_text(&found, &locals), "1, [3], *(4, 5), key='k'");
        let names: Vec<String> = parameters("def g(x, /, y, *, z):\n    pass\n", "g")
            .into_iter()
            .map(|parameter| parameter.name)
            .collect();
        assert_eq!(names, ["x", "y", "z"]);
        assert_eq!(
            positional_parameter_count("def g(x, /, y, *, z):\n    pass\n", "g"),
            2
        );
    }

    #[test]
    fn python_strings_escape_what_they_must() {
        assert_eq!(python_string("it's\n\\"), r"'it\'s\n\\'");
    }
}

//! Tool results as short text, the `content` an agent reads when it does
//! not read `structuredContent`. Says the same as the structured result, in
//! fewer tokens.

use std::fmt::Write;

use ndb_inference::suggest::describe_prediction;

use crate::output::*;
use crate::tools::ToolOutput;

/// One state in one or two lines:
/// `line 5 (depth 0) `    total += x`  [confidence 3/4]`, then the variables.
pub fn render_state(state: &StateOut) -> String {
    let mut out = String::new();
    match (state.event.as_str(), state.line) {
        ("exit", _) => {
            let _ = write!(
                out,
                "exit {}",
                state.status.as_deref().unwrap_or("before the entry call")
            );
        }
        ("line", Some(line)) => {
            let _ = write!(out, "line {line}");
            if let Some(depth) = state.depth {
                let _ = write!(out, " (depth {depth})");
            }
            if let Some(text) = &state.source_line {
                let _ = write!(out, ": `{}`", text.trim());
            }
        }
        (event, Some(line)) => {
            let _ = write!(out, "{event} at line {line}");
            if let Some(depth) = state.depth {
                let _ = write!(out, " (depth {depth})");
            }
            if let Some(text) = &state.source_line {
                let _ = write!(out, ": `{}`", text.trim());
            }
        }
        (event, None) => out.push_str(event),
    }
    if let Some(value) = &state.value {
        let _ = write!(out, " -> {value}");
    }
    if let (Some(confidence), Some(verdict)) = (state.confidence, &state.verdict) {
        let _ = write!(out, "  [confidence {confidence:.2}, {verdict}]");
    }
    if let Some(locals) = &state.locals {
        let label = match state.locals_shown.as_deref() {
            Some("changed") => "changed",
            Some("names") => "asked",
            _ => "locals",
        };
        let shown: Vec<String> = locals
            .iter()
            .map(|(name, value)| format!("{name} = {}", value.as_str().unwrap_or("")))
            .collect();
        if shown.is_empty() {
            let _ = write!(out, "\n{label}: none");
        } else {
            let _ = write!(out, "\n{label}: {}", shown.join(", "));
        }
        if !state.unchanged.is_empty() {
            let _ = write!(out, "\nunchanged: {}", state.unchanged.join(", "));
        }
    }
    if let Some(omitted) = &state.omitted {
        let _ = write!(out, "\n({omitted})");
    }
    if let Some(note) = &state.note {
        let _ = write!(out, "\n(note: {note})");
    }
    out
}

fn verified(value: Option<bool>) -> &'static str {
    match value {
        Some(true) => " verified",
        Some(false) => " REFUTED",
        None => "",
    }
}

/// The text rendering of a result.
pub fn render(output: &ToolOutput) -> String {
    let out = match output {
        ToolOutput::ListFunctions(result) => render_list_functions(result),
        ToolOutput::Session(result) => render_session(result),
        ToolOutput::EndSession(result) => render_end_session(result),
        ToolOutput::PredictOutput(result) => render_predict_output(result),
        ToolOutput::PredictAtLine(result) => render_predict_at_line(result),
        ToolOutput::SuggestInputs(result) => render_suggest_inputs(result),
        ToolOutput::RunTrace(result) => render_run_trace(result),
        ToolOutput::CheckPrediction(result) => render_check_prediction(result),
    };
    out.trim_end().to_string()
}

/// `list_functions`: the syntax error if any, then each function and its entry calls.
fn render_list_functions(result: &ListFunctionsOut) -> String {
    let mut out = String::new();
    if let Some(error) = &result.syntax_error {
        let _ = writeln!(out, "syntax error at {error}");
    }
    if result.functions.is_empty() {
        out.push_str("no functions");
    }
    for function in &result.functions {
        let _ = write!(
            out,
            "{} (lines {}-{}): {}",
            function.qualified_name, function.line, function.end_line, function.signature
        );
        for call in &function.entry_calls {
            let _ = write!(
                out,
                "\n    entry call: {}  ({}, line {})",
                call.call, call.origin, call.line
            );
        }
        out.push('\n');
    }
    out
}

/// `start_session`, `step` and `get_state`: the session line, then the current state.
fn render_session(result: &SessionOut) -> String {
    let mut out = String::new();
    let _ = write!(out, "session {}", result.session_id);
    match &result.action {
        Some(action) => {
            let _ = write!(out, ", step {} ({action})", result.steps);
        }
        None => {
            let _ = write!(out, ", {} steps", result.steps);
        }
    }
    let _ = write!(
        out,
        " [{}]\n{}",
        result.debugger,
        render_state(&result.state)
    );
    if result.exited {
        out.push_str("\nthe program has exited; only inv_* actions move from here");
    }
    out
}

/// `end_session`: one line with the number of steps taken.
fn render_end_session(result: &EndSessionOut) -> String {
    format!(
        "session {} ended after {} steps",
        result.session_id, result.steps
    )
}

/// `predict_output`: what the call returns or raises, and how sure the model is.
fn render_predict_output(result: &PredictOutputOut) -> String {
    let mut out = String::new();
    let verb = if result.raised { "raises" } else { "returns" };
    let _ = write!(
        out,
        "{} {verb} {}",
        result.entry_call,
        result.value.as_deref().unwrap_or("(nothing predicted)")
    );
    if let (Some(confidence), Some(verdict)) = (result.state.confidence, &result.state.verdict) {
        let _ = write!(out, "  [confidence {confidence:.2}, {verdict}]");
    }
    let _ = write!(out, " [{}]", result.debugger);
    out
}

/// `predict_at_line`: whether the line is reached, then the state there or where it ends.
fn render_predict_at_line(result: &PredictAtLineOut) -> String {
    let mut out = String::new();
    if result.reached {
        let _ = writeln!(
            out,
            "{} at line {} [{}]:",
            result.entry_call, result.line, result.debugger
        );
    } else {
        let _ = writeln!(
            out,
            "{} is predicted never to stop at line {} [{}]; it ends at:",
            result.entry_call, result.line, result.debugger
        );
    }
    out.push_str(&render_state(&result.state));
    out
}

/// `suggest_inputs`: the header, one line per suggestion, then the runs and notes.
fn render_suggest_inputs(result: &SuggestInputsOut) -> String {
    let mut out = String::new();
    let _ = write!(out, "inputs for {}", result.function);
    if let Some(output) = &result.output {
        let _ = write!(out, " returning {output}");
    }
    let _ = write!(out, " [{}]:", result.debugger);
    if result.suggestions.is_empty() {
        out.push_str("\n(none)");
    }
    for suggestion in &result.suggestions {
        out.push('\n');
        render_suggestion(&mut out, suggestion, result.output.as_deref());
    }
    if result.runs > 0 {
        let _ = write!(
            out,
            "\n{} runs in {:.1} s ({})",
            result.runs, result.seconds, result.stop
        );
    }
    for note in &result.notes {
        let _ = write!(out, "\nnote: {note}");
    }
    out
}

/// One `suggest_inputs` line: the call, its output, its votes or origin, and what a run gave.
fn render_suggestion(out: &mut String, suggestion: &SuggestionOut, asked_output: Option<&str>) {
    out.push_str(&suggestion.entry_call);
    if let (None, Some(output)) = (asked_output, &suggestion.output) {
        let _ = write!(out, " -> {output}");
    }
    if suggestion.samples > 0 {
        let _ = write!(
            out,
            "  ({}/{} votes{})",
            suggestion.votes,
            suggestion.samples,
            verified(suggestion.verified)
        );
    } else {
        let _ = write!(
            out,
            "  (from {}{})",
            suggestion.from,
            verified(suggestion.verified)
        );
    }
    if let Some(actual) = &suggestion.actual {
        let _ = write!(out, " gave {actual}");
    }
    if let Some(predicted) = &suggestion.predicted {
        let confidence = predicted.confidence.zip(predicted.verdict.as_deref());
        let described = describe_prediction(
            predicted.gives_output,
            predicted.raised,
            predicted.value.as_deref(),
            confidence,
            usize::MAX,
        );
        let _ = write!(out, " {described}");
    }
}

/// `run_trace`: how the real run ended, then the start state and each action's state.
fn render_run_trace(result: &RunTraceOut) -> String {
    let mut out = String::new();
    let _ = write!(
        out,
        "{} ran for real ({}): exit {}",
        result.entry_call, result.sandbox, result.status
    );
    if let Some(value) = &result.value {
        let _ = write!(out, " -> {value}");
    }
    if let Some(reason) = &result.reason {
        let _ = write!(out, " ({reason})");
    }
    let _ = write!(out, ", {} events", result.events);
    if !result.stdout.is_empty() {
        let _ = write!(out, "\nprinted: {:?}", result.stdout);
    }
    let _ = write!(out, "\nstart: {}", render_state(&result.start));
    for step in &result.steps {
        let _ = write!(out, "\n{}: {}", step.action, render_state(&step.state));
    }
    out
}

/// `check_prediction`: the verdict, the real outcome, then the first state that differs.
fn render_check_prediction(result: &CheckPredictionOut) -> String {
    let mut out = String::new();
    let _ = write!(
        out,
        "{} ({} checked, ran {})",
        result.verdict, result.checked, result.sandbox
    );
    if let Some(status) = &result.real_status {
        let _ = write!(
            out,
            "; the real run ends {status} -> {}",
            result.real_value.as_deref().unwrap_or("None")
        );
    }
    if let Some(difference) = &result.first_difference {
        let _ = write!(
            out,
            "\nfirst difference at step {}{}:\npredicted: {}\nreal: {}",
            difference.step,
            difference
                .action
                .as_deref()
                .map(|a| format!(" ({a})"))
                .unwrap_or_default(),
            render_state(&difference.predicted),
            render_state(&difference.real)
        );
    }
    out
}

//! The typed results of every tool: what `structuredContent` carries and
//! what their published output schemas describe (generated from these
//! types). `render.rs` writes the same results as short text.

use std::collections::BTreeMap;

use schemars::JsonSchema;
use serde::Serialize;
use serde_json::{Map, Value};

/// One debugger stop as an agent sees it: bounded, by default only the
/// variables that changed.
#[derive(Clone, Debug, PartialEq, Serialize, JsonSchema)]
pub struct StateOut {
    /// call, line, return, exception, or exit (the run ended).
    pub event: String,
    /// The 1-based line of the stop; null at the exit.
    pub line: Option<u32>,
    /// Frames of the file below this one: the entry call is 0.
    pub depth: Option<u32>,
    /// The text of that line (the `def` line for calls).
    pub source_line: Option<String>,
    /// Variable name to bounded `repr()` text: which ones is said by
    /// `locals_shown`. Null at return, exception and exit stops.
    #[schemars(with = "Option<BTreeMap<String, String>>")]
    pub locals: Option<Map<String, Value>>,
    /// all, changed (only variables new or changed since the previous
    /// state of the same frame), or names (those asked for). Absent when
    /// the stop has no variables.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub locals_shown: Option<String>,
    /// Variables not shown because they did not change.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub unchanged: Vec<String>,
    /// Set when variables or characters were left out, with how to ask for
    /// them: "3 more omitted, ask for names=[...]".
    #[serde(skip_serializing_if = "Option::is_none")]
    pub omitted: Option<String>,
    /// The returned value or raised exception (return, exception, exit).
    pub value: Option<String>,
    /// At the exit: normal, error (an exception escaped) or never (a limit
    /// cut the run off).
    pub status: Option<String>,
    /// How sure the model is, 0 to 1: the answer's own probability with one
    /// sample, combined with the samples' agreement with several; null for
    /// the real tracer, which is certain.
    pub confidence: Option<f64>,
    /// "likely" or "guess" (confidence below the threshold measured on
    /// held-out states, where answers were right less than half the time);
    /// absent for the real tracer.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub verdict: Option<String>,
    /// How many samples agreed, of how many; absent for the real tracer.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub votes: Option<u32>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub samples: Option<u32>,
    /// How the state was obtained, when the agent should know (such as
    /// steps left out of the model's prompt).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub note: Option<String>,
}

#[derive(Clone, Debug, PartialEq, Serialize, JsonSchema)]
pub struct EntryCallOut {
    /// The call, such as `f([1, 2])`, usable as `entry_call`.
    pub call: String,
    pub line: u32,
    /// comment (`# ndb: f(...)`), doctest, main (under `if __name__ ==
    /// "__main__":`) or call (elsewhere in the file).
    pub origin: String,
}

#[derive(Clone, Debug, PartialEq, Serialize, JsonSchema)]
pub struct FunctionOut {
    pub name: String,
    /// `Class.method` for methods.
    pub qualified_name: String,
    pub signature: String,
    pub parameters: Vec<String>,
    /// The `def` line and the last line of the body.
    pub line: u32,
    pub end_line: u32,
    pub method: bool,
    /// Entry calls the file itself suggests, most deliberate first.
    pub entry_calls: Vec<EntryCallOut>,
}

#[derive(Clone, Debug, PartialEq, Serialize, JsonSchema)]
pub struct ListFunctionsOut {
    pub functions: Vec<FunctionOut>,
    /// The first syntax error, if the file has one.
    pub syntax_error: Option<String>,
}

/// The state of a session after `start_session`, `step` or `get_state`.
#[derive(Clone, Debug, PartialEq, Serialize, JsonSchema)]
pub struct SessionOut {
    pub session_id: String,
    /// The action just taken (`breakpoint:12`); null for start and get_state.
    pub action: Option<String>,
    /// Actions taken since the start.
    pub steps: u32,
    /// The current state.
    pub state: StateOut,
    /// The program has exited: only inverse actions move from here.
    pub exited: bool,
    /// Who answered: the model's name, or `trace` for the real tracer.
    pub debugger: String,
}

#[derive(Clone, Debug, PartialEq, Serialize, JsonSchema)]
pub struct EndSessionOut {
    pub session_id: String,
    pub ended: bool,
    pub steps: u32,
}

#[derive(Clone, Debug, PartialEq, Serialize, JsonSchema)]
pub struct PredictOutputOut {
    /// The call predicted, usable in `check_prediction`.
    pub entry_call: String,
    /// The predicted return value (or raised exception) as a repr.
    pub value: Option<String>,
    /// The call is predicted to raise `value`.
    pub raised: bool,
    /// How sure the model is of this answer, 0 to 1 (see `StateOut`).
    pub confidence: Option<f64>,
    /// The predicted state the value was read from.
    pub state: StateOut,
    pub debugger: String,
}

#[derive(Clone, Debug, PartialEq, Serialize, JsonSchema)]
pub struct PredictAtLineOut {
    pub entry_call: String,
    pub line: u32,
    /// The predicted stop is at `line`; false when the model predicts the
    /// run never gets there (the state is then where it ends).
    pub reached: bool,
    pub state: StateOut,
    pub debugger: String,
}

#[derive(Clone, Debug, PartialEq, Serialize, JsonSchema)]
pub struct SuggestionOut {
    /// The argument text, such as `[3, 1], k=2`.
    pub input: String,
    /// The call to use as `entry_call`.
    pub entry_call: String,
    /// The output this input is meant to give: the one asked for, or the
    /// one the model predicts when none was asked for.
    pub output: Option<String>,
    /// Where it came from: `model`, `doctest`, `call`, `entry_call`,
    /// `output`, `derived` (the output with a common transformation
    /// undone, or worked back through a probe run), `generated` (the
    /// output, literals, fillers), `edit`, `returned`, `probe` (a probe
    /// run's argument that happened to give the output).
    pub origin: String,
    /// The same for people, such as `edit of 'ab'`.
    pub from: String,
    /// How many of the model's samples gave this input (0 when the model
    /// did not).
    pub votes: u32,
    pub samples: u32,
    /// True or false when checked with the real tracer (`verify`), null
    /// when not checked or not checkable.
    pub verified: Option<bool>,
    /// When run and not confirmed: what it really returned (a repr), or
    /// `raised ...`, or why the run could not decide.
    pub actual: Option<String>,
    /// Without `verify`: what the model predicts this input returns (a
    /// prediction, not a run); absent when the model did not check it.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub predicted: Option<PredictedReturnOut>,
}

/// The model's prediction of what a suggested input returns, made
/// without running it.
#[derive(Clone, Debug, PartialEq, Serialize, JsonSchema)]
pub struct PredictedReturnOut {
    /// The predicted return value (a repr), or the exception predicted to
    /// escape when `raised`; null when the prediction never got there.
    pub value: Option<String>,
    pub raised: bool,
    /// The prediction is the output asked for.
    pub gives_output: bool,
    /// How sure the model is of the prediction, 0 to 1.
    pub confidence: Option<f64>,
    /// "likely" or "guess".
    pub verdict: Option<String>,
}

#[derive(Clone, Debug, PartialEq, Serialize, JsonSchema)]
pub struct SuggestInputsOut {
    pub function: String,
    pub output: Option<String>,
    /// Confirmed first, then most voted, then nearest the output, then
    /// shortest.
    pub suggestions: Vec<SuggestionOut>,
    /// Candidate runs made (`verify`).
    pub runs: u32,
    pub seconds: f64,
    /// Why the search ended: `confirmed`, `runs spent`, `time spent`,
    /// `candidates exhausted`, `not run`.
    pub stop: String,
    /// What to know, such as "every one of the 32 runs raised".
    pub notes: Vec<String>,
    pub debugger: String,
}

#[derive(Clone, Debug, PartialEq, Serialize, JsonSchema)]
pub struct TracedStepOut {
    pub action: String,
    pub state: StateOut,
}

#[derive(Clone, Debug, PartialEq, Serialize, JsonSchema)]
pub struct RunTraceOut {
    pub entry_call: String,
    /// How the run ended: normal, error or never (a limit cut it off).
    pub status: String,
    /// The return value or the escaping exception.
    pub value: Option<String>,
    /// Why the run was cut off or died.
    pub reason: Option<String>,
    /// What the program printed (bounded).
    pub stdout: String,
    /// How many events the tracer recorded.
    pub events: u32,
    /// The call state.
    pub start: StateOut,
    /// The state after each requested action.
    pub steps: Vec<TracedStepOut>,
    /// How the code was confined: `sandboxed`, or which rules the kernel
    /// lacked (docs/sandbox.md).
    pub sandbox: String,
}

#[derive(Clone, Debug, PartialEq, Serialize, JsonSchema)]
pub struct DifferenceOut {
    /// 0 is the start state, n the state after the n-th action.
    pub step: u32,
    pub action: Option<String>,
    pub predicted: StateOut,
    pub real: StateOut,
}

#[derive(Clone, Debug, PartialEq, Serialize, JsonSchema)]
pub struct CheckPredictionOut {
    /// agree, differ, or unknown (the real run could not answer).
    pub verdict: String,
    /// States (session) or outputs compared.
    pub checked: u32,
    /// The first predicted state that differs from the real one.
    pub first_difference: Option<Box<DifferenceOut>>,
    /// For an output check: the real return value or exception.
    pub real_value: Option<String>,
    /// For an output check: normal, error or never.
    pub real_status: Option<String>,
    /// How the code was confined: `sandboxed`, or which rules the kernel
    /// lacked (docs/sandbox.md).
    pub sandbox: String,
}

//! The typed arguments of every tool. Their serde form *is* the contract
//! (`source`, `path`, `entry_call`, `session_id`, ...): the JSON Schemas the
//! server publishes are generated from these types, so the schema and the
//! parser cannot drift. Unknown argument names are refused with the list of
//! known ones, so an agent's typo is not silently ignored.

use schemars::JsonSchema;
use serde::Deserialize;

/// Which file: its text, or a path the server reads.
pub trait HasSource {
    fn source(&self) -> Option<&str>;
    fn path(&self) -> Option<&str>;
}

macro_rules! has_source {
    ($($name:ident),*) => {
        $(impl HasSource for $name {
            fn source(&self) -> Option<&str> {
                self.source.as_deref()
            }
            fn path(&self) -> Option<&str> {
                self.path.as_deref()
            }
        })*
    };
}

has_source!(
    ListFunctionsArgs,
    StartSessionArgs,
    PredictOutputArgs,
    PredictAtLineArgs,
    SuggestInputsArgs,
    RunTraceArgs,
    CheckPredictionArgs
);

#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ListFunctionsArgs {
    /// The Python source text. Give `source` or `path`, not both.
    pub source: Option<String>,
    /// A path to a Python file the server reads. Give `source` or `path`.
    pub path: Option<String>,
}

#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct StartSessionArgs {
    /// The Python source text. Give `source` or `path`, not both.
    pub source: Option<String>,
    /// A path to a Python file the server reads. Give `source` or `path`.
    pub path: Option<String>,
    /// The call that starts the session, such as `f([1, 2], k=3)`: a function
    /// of the file called by name with literal arguments (or module globals).
    pub entry_call: String,
    /// How many answers the model samples per step (agreement among them is
    /// the confidence). Default: the server's setting.
    #[schemars(range(min = 1, max = 16))]
    pub samples: Option<u32>,
}

/// A debugger action, as pdb names them (`inv_*` go backwards).
#[derive(Clone, Copy, Debug, Deserialize, JsonSchema, PartialEq, Eq)]
#[serde(rename_all = "snake_case")]
pub enum ActionName {
    StepInto,
    StepOver,
    StepReturn,
    Breakpoint,
    Continue,
    InvStepInto,
    InvStepOver,
    InvStepCall,
}

#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct StepArgs {
    /// The id `start_session` returned.
    pub session_id: String,
    /// step_into (pdb `step`), step_over (`next`), step_return (`return`),
    /// breakpoint (`tbreak LINE` + `continue`; needs `line`), continue, or
    /// the inverse steps inv_step_into, inv_step_over, inv_step_call.
    pub action: ActionName,
    /// The 1-based line for `breakpoint`.
    #[schemars(range(min = 1))]
    pub line: Option<u32>,
    /// Show exactly these variables, with longer values.
    pub names: Option<Vec<String>>,
    /// Show every variable instead of only those that changed.
    pub all_locals: Option<bool>,
}

#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct GetStateArgs {
    /// The id `start_session` returned.
    pub session_id: String,
    /// Show exactly these variables, with longer values.
    pub names: Option<Vec<String>>,
    /// Show every variable (the default here).
    pub all_locals: Option<bool>,
}

#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct EndSessionArgs {
    /// The id `start_session` returned.
    pub session_id: String,
}

#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct PredictOutputArgs {
    /// The Python source text. Give `source` or `path`, not both.
    pub source: Option<String>,
    /// A path to a Python file the server reads. Give `source` or `path`.
    pub path: Option<String>,
    /// The function to call, defined at the file's top level.
    pub function: String,
    /// The argument text, as written between the parentheses: `[1, 2], k=3`.
    pub input: String,
    /// step_return (default), breakpoint or rollout.
    pub mode: Option<ndb_inference::ops::OutputMode>,
    /// How many answers the model samples (agreement is the confidence).
    #[schemars(range(min = 1, max = 16))]
    pub samples: Option<u32>,
}

#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct PredictAtLineArgs {
    /// The Python source text. Give `source` or `path`, not both.
    pub source: Option<String>,
    /// A path to a Python file the server reads. Give `source` or `path`.
    pub path: Option<String>,
    /// The call to run, such as `f([1, 2], k=3)`.
    pub entry_call: String,
    /// The 1-based line of the breakpoint, inside a function of the file.
    #[schemars(range(min = 1))]
    pub line: u32,
    /// Show exactly these variables, with longer values.
    pub names: Option<Vec<String>>,
    /// How many answers the model samples (agreement is the confidence).
    #[schemars(range(min = 1, max = 16))]
    pub samples: Option<u32>,
}

#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct SuggestInputsArgs {
    /// The Python source text. Give `source` or `path`, not both.
    pub source: Option<String>,
    /// A path to a Python file the server reads. Give `source` or `path`.
    pub path: Option<String>,
    /// The function whose inputs are suggested.
    pub function: String,
    /// The wanted return value as a repr, such as `[2, 1]`; omit for any
    /// input the function plausibly takes.
    pub output: Option<String>,
    /// How many samples to draw (duplicates are merged into votes). Default 4.
    #[schemars(range(min = 1, max = 16))]
    pub k: Option<u32>,
    /// Run candidates with the real tracer: each suggestion is marked
    /// verified or refuted, and with an `output` a search beyond the
    /// model's candidates looks for inputs that give it. Runs your code:
    /// only on a server started with --allow-run.
    pub verify: Option<bool>,
    /// Ask the model for candidates (default true); false leaves only the
    /// search, which needs `verify`.
    pub use_model: Option<bool>,
    /// Most candidate runs with `verify` (default 32).
    #[schemars(range(min = 1, max = 256))]
    pub max_runs: Option<u32>,
    /// Most seconds for the whole suggestion, the model's included
    /// (default 10).
    #[schemars(range(min = 1, max = 120))]
    pub max_seconds: Option<u32>,
}

#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct RunTraceArgs {
    /// The Python source text. Give `source` or `path`, not both.
    pub source: Option<String>,
    /// A path to a Python file the server reads. Give `source` or `path`.
    pub path: Option<String>,
    /// The call to run for real, such as `f([1, 2], k=3)`.
    pub entry_call: String,
    /// Actions to apply from the call state, such as
    /// `["step_over", "breakpoint:12"]`; each resulting state is returned.
    /// Default: none (the run's start, exit and printed output only).
    pub actions: Option<Vec<String>>,
    /// Show exactly these variables, with longer values.
    pub names: Option<Vec<String>>,
}

#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct CheckPredictionArgs {
    /// Check every state of this session against the real tracer.
    pub session_id: Option<String>,
    /// Or check an output: the Python source text (with `entry_call` and
    /// `output`).
    pub source: Option<String>,
    /// Or a path to the Python file (with `entry_call` and `output`).
    pub path: Option<String>,
    /// The call whose output is checked, such as `f([1, 2])`.
    pub entry_call: Option<String>,
    /// The predicted return value as a repr, such as `[2, 1]`.
    pub output: Option<String>,
}

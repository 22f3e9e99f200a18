//! The catalogue of tools as plain data: names, descriptions, input and
//! output JSON Schemas (generated from the argument and result types), and
//! honest hints: predictions are read-only; anything that runs the user's
//! code is not, and is listed only when the server allows running code.
//! Rendered for MCP in `server.rs` and for OpenAI-style function calling
//! here.

use schemars::generate::SchemaSettings;
use schemars::JsonSchema;
use serde_json::{json, Map, Value};

use crate::args::*;
use crate::output::*;
use crate::{Backend, ServerConfig};

/// Every tool, in the order they are listed.
pub const TOOL_NAMES: [&str; 10] = [
    "list_functions",
    "start_session",
    "step",
    "get_state",
    "end_session",
    "predict_output",
    "predict_at_line",
    "suggest_inputs",
    "run_trace",
    "check_prediction",
];

/// One tool as clients see it.
#[derive(Clone, Debug)]
pub struct ToolSpec {
    pub name: &'static str,
    pub title: &'static str,
    pub description: String,
    pub input_schema: Map<String, Value>,
    pub output_schema: Map<String, Value>,
    /// The tool does not change anything outside the server (no user code
    /// is run).
    pub read_only: bool,
    /// Repeating the call has no further effect.
    pub idempotent: bool,
}

/// A JSON Schema with every subschema inlined (agents and OpenAI-style
/// function calling read flat schemas best), without `$schema` and `title`.
fn schema_with<T: JsonSchema>(settings: SchemaSettings) -> Map<String, Value> {
    let generator = settings
        .with(|settings| {
            settings.inline_subschemas = true;
            settings.meta_schema = None;
        })
        .into_generator();
    let schema = generator.into_root_schema_for::<T>();
    let mut object = match schema.to_value() {
        Value::Object(object) => object,
        _ => Map::new(),
    };
    object.remove("title");
    object
}

/// The schema of a tool's arguments (what deserializes).
pub fn input_schema<T: JsonSchema>() -> Map<String, Value> {
    schema_with::<T>(SchemaSettings::draft2020_12().for_deserialize())
}

/// The schema of a tool's result (what serializes: fields that are always
/// written are required).
pub fn output_schema<T: JsonSchema>() -> Map<String, Value> {
    schema_with::<T>(SchemaSettings::draft2020_12().for_serialize())
}

const PREDICTED: &str = "Predicted by the neural debugger without running the code; every state carries `confidence` (the answer's probability, with agreement when several samples are drawn) and `verdict` (`likely` or `guess`).";
const TRACED: &str = "Predicted by running the code under the real tracer (this server was started with --backend trace); states are certain (`confidence` null).";
const AUTO: &str = "Real values from running the code under the real tracer, sandboxed, where it runs (`confidence` null); where it cannot (a missing module or name, a limit), predicted by the neural debugger with `confidence` and `verdict`, and `note` says why (this server was started with --backend auto).";

/// The tools a server with `config` offers.
pub fn tool_specs(config: &ServerConfig) -> Vec<ToolSpec> {
    let predictions_run_code = config.backend != Backend::Model;
    let predicted = match config.backend {
        Backend::Model => PREDICTED,
        Backend::Tracer => TRACED,
        Backend::Auto => AUTO,
    };
    let mut specs = vec![
        ToolSpec {
            name: "list_functions",
            title: "List functions",
            description: "The functions of a Python file (`source` text or `path`): signatures, line ranges, and entry calls the file suggests (doctests, `# ndb: f(...)` comments, calls under `if __name__ == \"__main__\":`, other literal calls). Start here to pick an `entry_call`.".into(),
            input_schema: input_schema::<ListFunctionsArgs>(),
            output_schema: output_schema::<ListFunctionsOut>(),
            read_only: true,
            idempotent: true,
        },
        ToolSpec {
            name: "start_session",
            title: "Start a debugging session",
            description: format!("Starts a debugging session at the call state of `entry_call` (such as `f([1, 2], k=3)`) and returns its `session_id` and first state. Step it with `step`, end it with `end_session`; idle sessions expire after {} s. {predicted}", config.idle_timeout.as_secs()),
            input_schema: input_schema::<StartSessionArgs>(),
            output_schema: output_schema::<SessionOut>(),
            read_only: !predictions_run_code,
            idempotent: false,
        },
        ToolSpec {
            name: "step",
            title: "Step the debugger",
            description: format!("Applies one pdb action to a session: step_into, step_over, step_return, breakpoint (with `line`), continue, or backwards inv_step_into, inv_step_over, inv_step_call. Returns the new state with only the variables that changed (ask for `names` or `all_locals` to see more). {predicted}"),
            input_schema: input_schema::<StepArgs>(),
            output_schema: output_schema::<SessionOut>(),
            read_only: !predictions_run_code,
            idempotent: false,
        },
        ToolSpec {
            name: "get_state",
            title: "Show the current state",
            description: "The current state of a session with all its variables (or exactly `names`).".into(),
            input_schema: input_schema::<GetStateArgs>(),
            output_schema: output_schema::<SessionOut>(),
            read_only: true,
            idempotent: true,
        },
        ToolSpec {
            name: "end_session",
            title: "End a session",
            description: "Ends a session and frees it.".into(),
            input_schema: input_schema::<EndSessionArgs>(),
            output_schema: output_schema::<EndSessionOut>(),
            read_only: true,
            idempotent: false,
        },
        ToolSpec {
            name: "predict_output",
            title: "Predict a function's output",
            description: format!("Predicts what `function(input)` returns or raises, with `input` the argument text such as `[1, 2], k=3`. {predicted}"),
            input_schema: input_schema::<PredictOutputArgs>(),
            output_schema: output_schema::<PredictOutputOut>(),
            read_only: !predictions_run_code,
            idempotent: true,
        },
        ToolSpec {
            name: "predict_at_line",
            title: "Predict the variables at a line",
            description: format!("Runs `entry_call` to a breakpoint at `line` and returns the variables there, or where the run ends if it never gets there (`reached` false). {predicted}"),
            input_schema: input_schema::<PredictAtLineArgs>(),
            output_schema: output_schema::<PredictAtLineOut>(),
            read_only: !predictions_run_code,
            idempotent: true,
        },
        ToolSpec {
            name: "suggest_inputs",
            title: "Suggest inputs",
            description: format!("Suggests argument lists for `function` that produce `output` (a repr such as `[2, 1]`), or any plausible input when `output` is omitted; `k` samples merged into votes. With `verify` (needs --allow-run) each is run with the real tracer. {}", if predictions_run_code { TRACED } else { "Predicted by the neural debugger without running the code." }),
            input_schema: input_schema::<SuggestInputsArgs>(),
            output_schema: output_schema::<SuggestInputsOut>(),
            read_only: !predictions_run_code && !config.allow_run,
            idempotent: true,
        },
    ];
    if config.allow_run {
        specs.push(ToolSpec {
            name: "run_trace",
            title: "Run with the real tracer",
            description: "RUNS THE CODE (bounded in time, memory and events) under the real tracer: the run's exit status, return value and printed output, and the real state after each of `actions` (such as [\"step_over\", \"breakpoint:12\"]). Use it to check a prediction.".into(),
            input_schema: input_schema::<RunTraceArgs>(),
            output_schema: output_schema::<RunTraceOut>(),
            read_only: false,
            idempotent: false,
        });
        specs.push(ToolSpec {
            name: "check_prediction",
            title: "Check predictions against a real run",
            description: "RUNS THE CODE under the real tracer to check predictions: every state of a session (`session_id`), or a predicted `output` of `entry_call`. Says agree or differ, with the first differing state.".into(),
            input_schema: input_schema::<CheckPredictionArgs>(),
            output_schema: output_schema::<CheckPredictionOut>(),
            read_only: false,
            idempotent: false,
        });
    }
    specs
}

/// The tools as OpenAI-style function schemas:
/// `[{"type": "function", "function": {"name", "description", "parameters"}}]`.
pub fn openai_tool_schemas(config: &ServerConfig) -> Value {
    Value::Array(
        tool_specs(config)
            .into_iter()
            .map(|spec| {
                json!({
                    "type": "function",
                    "function": {
                        "name": spec.name,
                        "description": spec.description,
                        "parameters": Value::Object(spec.input_schema),
                    }
                })
            })
            .collect(),
    )
}

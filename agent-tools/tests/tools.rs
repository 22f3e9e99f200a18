//! The tools' core as data: scripted calls on fixture files, their text and
//! structured results snapshotted. Predictions come from the real tracer
//! dressed as a model (every state 3 of 4 votes), so these tests need
//! Python but no model; `tests/mcp.rs` at the root drives the real server
//! with the real model.

use ndb_inference::debugger::Source;
use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;

use ndb_agent_tools::render::render;
use ndb_agent_tools::{catalog, ServerConfig, ToolCall, Tools};
use ndb_grammar::Action;
use ndb_inference::debugger::{
    Cancel, Confidence, DebugError, Debugger, Session, State, TracerDebugger,
};
use serde_json::{json, Value};

/// The real tracer, with the confidence a model sampling 4 answers that
/// agree 3 times would give.
struct TracerAsModel(TracerDebugger);

impl TracerAsModel {
    fn vote(mut state: State) -> State {
        state.confidence = Some(Confidence {
            votes: 3,
            samples: 4,
            probability: None,
        });
        state
    }
}

impl Debugger for TracerAsModel {
    fn name(&self) -> String {
        "tracer-as-model".into()
    }
    fn start(
        &self,
        source: &Source,
        entry_call: &str,
        cancel: &Cancel,
    ) -> Result<State, DebugError> {
        self.0.start(source, entry_call, cancel).map(Self::vote)
    }
    fn next(
        &self,
        session: &Session,
        action: Action,
        cancel: &Cancel,
    ) -> Result<State, DebugError> {
        self.0.next(session, action, cancel).map(Self::vote)
    }
}

fn fixture(name: &str) -> String {
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures")
        .join(name);
    std::fs::read_to_string(path).unwrap()
}

fn tools(allow_run: bool, idle_timeout: Duration) -> Tools {
    let config = ServerConfig {
        allow_run,
        idle_timeout,
        max_sessions: 2,
        ..ServerConfig::default()
    };
    Tools::with_debugger(
        config,
        Arc::new(TracerAsModel(TracerDebugger::new(Default::default()))),
    )
}

/// Runs the calls in order and writes a transcript: each call, then its
/// text rendering and (when `json`) its structured result, or its error.
fn transcript(tools: &Tools, calls: &[(&str, Value)], json: bool) -> String {
    let mut out = String::new();
    for (name, args) in calls {
        let mut shown = args.clone();
        if shown.get("source").is_some() {
            shown["source"] = "<fixture>".into();
        }
        out.push_str(&format!(">>> {name} {shown}\n"));
        let result =
            ToolCall::parse(name, args.clone()).and_then(|call| tools.call(call, &Cancel::new()));
        match result {
            Ok(output) => {
                out.push_str(&render(&output));
                out.push('\n');
                if json {
                    out.push_str(&serde_json::to_string_pretty(&output.to_json()).unwrap());
                    out.push('\n');
                }
            }
            Err(error) => out.push_str(&format!("error ({}): {error}\n", error.kind())),
        }
        out.push('\n');
    }
    out
}

#[test]
fn list_functions_finds_signatures_and_entry_calls() {
    let source = fixture("stats.py");
    let tools = tools(false, Duration::from_secs(60));
    insta::assert_snapshot!(transcript(
        &tools,
        &[
            ("list_functions", json!({ "source": source })),
            (
                "list_functions",
                json!({ "source": fixture("syntax_error.py") })
            ),
        ],
        true,
    ));
}

#[test]
fn list_functions_reads_decorators_async_nesting_and_conditionals() {
    let tools = tools(false, Duration::from_secs(60));
    insta::assert_snapshot!(transcript(
        &tools,
        &[("list_functions", json!({ "source": fixture("shapes.py") }))],
        false,
    ));
}

#[test]
fn a_session_shows_changed_variables_with_confidence() {
    let source = fixture("stats.py");
    let tools = tools(false, Duration::from_secs(60));
    insta::assert_snapshot!(transcript(
        &tools,
        &[
            (
                "start_session",
                json!({ "source": source, "entry_call": "normalize([3, 1, 2])" })
            ),
            ("step", json!({ "session_id": "s1", "action": "step_over" })),
            ("step", json!({ "session_id": "s1", "action": "step_over" })),
            ("step", json!({ "session_id": "s1", "action": "step_over" })),
            (
                "step",
                json!({ "session_id": "s1", "action": "step_over", "names": ["s", "scores", "nope"] })
            ),
            (
                "step",
                json!({ "session_id": "s1", "action": "inv_step_over" })
            ),
            (
                "step",
                json!({ "session_id": "s1", "action": "breakpoint", "line": 13 })
            ),
            ("get_state", json!({ "session_id": "s1" })),
            ("step", json!({ "session_id": "s1", "action": "continue" })),
            ("step", json!({ "session_id": "s1", "action": "step_over" })),
            ("end_session", json!({ "session_id": "s1" })),
            ("step", json!({ "session_id": "s1", "action": "step_over" })),
        ],
        false,
    ));
}

#[test]
fn one_shot_predictions() {
    let source = fixture("stats.py");
    let tools = tools(false, Duration::from_secs(60));
    insta::assert_snapshot!(transcript(
        &tools,
        &[
            (
                "predict_output",
                json!({ "source": source, "function": "clamp", "input": "15, 0, 10" })
            ),
            (
                "predict_output",
                json!({ "source": source, "function": "normalize", "input": "[0]" })
            ),
            (
                "predict_at_line",
                json!({ "source": source, "entry_call": "describe([1, 20])", "line": 31 })
            ),
            (
                "predict_at_line",
                json!({ "source": source, "entry_call": "clamp(5, 0, 10)", "line": 18 })
            ),
        ],
        true,
    ));
}

#[test]
fn bad_calls_are_clear_tool_errors() {
    let source = fixture("stats.py");
    let tools = tools(false, Duration::from_secs(60));
    let huge = "x = 1\n".repeat(100_000);
    // The allowed directory is where the tests run: named, so that the
    // snapshot is the same on every machine.
    let here = std::env::current_dir().unwrap().display().to_string();
    insta::assert_snapshot!(transcript(
        &tools,
        &[
            ("no_such_tool", json!({})),
            ("start_session", json!({ "source": source })),
            (
                "start_session",
                json!({ "source": source, "entry_call": 42 })
            ),
            (
                "start_session",
                json!({ "source": source, "path": "x.py", "entry_call": "f()" })
            ),
            (
                "start_session",
                json!({ "source": source, "entry_call": "nope(1)" })
            ),
            (
                "start_session",
                json!({ "source": source, "entry_call": "clamp(" })
            ),
            (
                "start_session",
                json!({ "source": fixture("syntax_error.py"), "entry_call": "good(1)" })
            ),
            (
                "start_session",
                json!({ "source": huge, "entry_call": "f()" })
            ),
            (
                "start_session",
                json!({ "path": "/nonexistent/file.py", "entry_call": "f()" })
            ),
            (
                "predict_at_line",
                json!({ "source": source, "entry_call": "clamp(1, 0, 2)", "line": 400 })
            ),
            (
                "predict_at_line",
                json!({ "source": source, "entry_call": "clamp(1, 0, 2)", "line": 2 })
            ),
            (
                "predict_at_line",
                json!({ "source": source, "entry_call": "clamp(1, 0, 2)", "line": 11, "extra": 1 })
            ),
            (
                "predict_output",
                json!({ "source": source, "function": "clamp", "input": "1, 2)" })
            ),
            ("step", json!({ "session_id": "s9", "action": "jump" })),
            (
                "step",
                json!({ "session_id": "s9", "action": "step_over", "line": 3 })
            ),
            (
                "run_trace",
                json!({ "source": source, "entry_call": "clamp(1, 0, 2)" })
            ),
            (
                "check_prediction",
                json!({ "source": source, "entry_call": "clamp(1, 0, 2)", "output": "1" })
            ),
            (
                "suggest_inputs",
                json!({ "source": source, "function": "clamp", "verify": true })
            ),
        ],
        false,
    )
    .replace(&here, "[WORKING DIRECTORY]"));
}

#[test]
fn sessions_expire_and_are_evicted() {
    let source = fixture("stats.py");
    let tools = tools(false, Duration::from_secs(2));
    let start = |call: &str| {
        let call = ToolCall::parse(
            "start_session",
            json!({ "source": source, "entry_call": call }),
        )
        .unwrap();
        tools.call(call, &Cancel::new()).unwrap()
    };
    start("clamp(1, 0, 2)");
    std::thread::sleep(Duration::from_millis(2100));
    start("clamp(2, 0, 2)");
    start("clamp(3, 0, 2)");
    start("clamp(4, 0, 2)");
    insta::assert_snapshot!(transcript(
        &tools,
        &[
            ("get_state", json!({ "session_id": "s1" })),
            ("get_state", json!({ "session_id": "s2" })),
            ("get_state", json!({ "session_id": "s4", "names": ["x"] })),
        ],
        false,
    ));
}

#[test]
fn running_code_when_allowed() {
    let source = fixture("stats.py");
    let tools = tools(true, Duration::from_secs(60));
    insta::assert_snapshot!(transcript(
        &tools,
        &[
            (
                "run_trace",
                json!({ "source": source, "entry_call": "describe([1, 20, -3])", "actions": ["step_over", "step_return"] })
            ),
            (
                "run_trace",
                json!({ "source": source, "entry_call": "normalize([0])" })
            ),
            (
                "run_trace",
                json!({ "source": source, "entry_call": "clamp(1)", "actions": ["jump"] })
            ),
            (
                "check_prediction",
                json!({ "source": source, "entry_call": "clamp(15, 0, 10)", "output": "10" })
            ),
            (
                "check_prediction",
                json!({ "source": source, "entry_call": "clamp(15, 0, 10)", "output": "15" })
            ),
            (
                "start_session",
                json!({ "source": source, "entry_call": "clamp(15, 0, 10)" })
            ),
            ("step", json!({ "session_id": "s1", "action": "step_over" })),
            ("check_prediction", json!({ "session_id": "s1" })),
            (
                "check_prediction",
                json!({ "entry_call": "clamp(15, 0, 10)" })
            ),
        ],
        true,
    ));
}

#[test]
fn the_catalog_is_honest_about_running_code() {
    let mut out = String::new();
    for allow_run in [false, true] {
        let config = ServerConfig {
            allow_run,
            ..ServerConfig::default()
        };
        out.push_str(&format!("allow_run = {allow_run}\n"));
        for spec in catalog::tool_specs(&config) {
            let required = spec
                .input_schema
                .get("required")
                .cloned()
                .unwrap_or(json!([]));
            out.push_str(&format!(
                "  {:<17} read_only={:<5} idempotent={:<5} required={required}\n",
                spec.name, spec.read_only, spec.idempotent
            ));
            assert_eq!(spec.output_schema["type"], "object", "{}", spec.name);
        }
    }
    insta::assert_snapshot!(out);
}

#[test]
fn openai_schemas_have_every_tool() {
    let schemas = ndb_agent_tools::openai_tool_schemas();
    let names: Vec<&str> = schemas
        .as_array()
        .unwrap()
        .iter()
        .map(|tool| tool["function"]["name"].as_str().unwrap())
        .collect();
    assert_eq!(names, catalog::TOOL_NAMES);
    let step = &schemas[2]["function"]["parameters"];
    assert_eq!(
        step["properties"]["action"]["enum"],
        json!([
            "step_into",
            "step_over",
            "step_return",
            "breakpoint",
            "continue",
            "inv_step_into",
            "inv_step_over",
            "inv_step_call"
        ])
    );
}

/// The real default model behind the tools: calls with different `samples`
/// are answered by one loaded copy of the weights (a per-request k), and
/// each answer's confidence counts the samples that call asked for.
#[test]
fn one_loaded_model_answers_every_samples_value_and_the_auto_backend() {
    let tools = Tools::new(ServerConfig {
        model: ndb_inference::neural::ModelSpec {
            max_new_tokens: 48,
            ..Default::default()
        },
        ..ServerConfig::default()
    });
    let source = "def add(a, b):\n    total = a + b\n    return total\n";
    let before = ndb_inference::neural::loads_in_process();
    for samples in [1, 3, 2, 1] {
        let call = ToolCall::parse(
            "predict_output",
            json!({ "source": source, "function": "add", "input": "2, 3", "samples": samples }),
        )
        .unwrap();
        match tools.call(call, &Cancel::new()) {
            Ok(output) => {
                let result = output.to_json();
                assert_eq!(
                    result["state"]["samples"],
                    json!(samples),
                    "the answer counts the samples this call asked for: {result}"
                );
            }
            // An unusable answer (cut off, malformed) is a tool error, not
            // a missing model: the load count below still holds.
            Err(error) => assert_eq!(error.kind(), "debugger", "{error}"),
        }
    }
    assert_eq!(
        ndb_inference::neural::loads_in_process() - before,
        1,
        "one copy of the weights for every samples value"
    );
    the_auto_backend_runs_what_runs_and_predicts_the_rest();
}

/// `--backend auto`: a function that runs is answered by the real tracer
/// (certain, no confidence); one whose module cannot load is predicted by
/// the real default model, with a confidence and a note saying why; the
/// model is loaded only then. (Run after the load count above, in the same
/// test: it loads a model too.)
fn the_auto_backend_runs_what_runs_and_predicts_the_rest() {
    let tools = Tools::new(ServerConfig {
        backend: ndb_agent_tools::Backend::Auto,
        allow_run: true,
        model: ndb_inference::neural::ModelSpec {
            max_new_tokens: 48,
            ..Default::default()
        },
        ..ServerConfig::default()
    });
    let runs = "def add(a, b):\n    total = a + b\n    return total\n";
    let call = |source: &str| {
        let call = ToolCall::parse(
            "predict_output",
            json!({ "source": source, "function": "add", "input": "2, 3" }),
        )
        .unwrap();
        tools
            .call(call, &Cancel::new())
            .map(|output| output.to_json())
    };
    let loads = ndb_inference::neural::loads_in_process();
    let real = call(runs).unwrap();
    assert_eq!(real["value"], json!("5"), "{real}");
    assert_eq!(real["confidence"], Value::Null, "{real}");
    assert_eq!(
        ndb_inference::neural::loads_in_process(),
        loads,
        "the tracer answered, yet the model was loaded"
    );
    let missing = format!("import ndb_no_such_module\n\n{runs}");
    match call(&missing) {
        Ok(predicted) => {
            assert!(predicted["confidence"].is_number(), "{predicted}");
            let note = predicted["state"]["note"].as_str().unwrap_or_default();
            assert!(note.contains("ndb_no_such_module"), "{predicted}");
        }
        // An unusable model answer is a tool error, never a real value.
        Err(error) => assert_eq!(error.kind(), "debugger", "{error}"),
    }
    assert_eq!(ndb_inference::neural::loads_in_process(), loads + 1);
}

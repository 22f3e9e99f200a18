//! Latency of each agent tool, median of a few runs, with the default model:
//! `cargo bench --workspace --profile dev --bench tools`.
//!
//! Every run asks about a different input, so no answer comes from the
//! model's cache. Settings from the environment: `NDB_BENCH_RUNS` (default
//! 3: a prediction takes seconds on 2 cores), `NDB_MODEL` (a model path; default the shipped model), `NDB_SAMPLES`
//! (samples per prediction), `NDB_BENCH_BACKEND=trace` (answers from the
//! real tracer instead of the model, to see the tools' own overhead).

use std::time::{Duration, Instant};

use ndb_agent_tools::{Backend, ServerConfig, ToolCall, Tools};
use ndb_inference::debugger::Cancel;
use ndb_inference::neural::ModelSpec;
use serde_json::{json, Value};

const SOURCE: &str = r#"def running_max(xs):
    """The largest value seen so far, at each position.

    >>> running_max([3, 1, 4, 1, 5])
    [3, 3, 4, 4, 5]
    """
    out = []
    best = xs[0]
    for x in xs:
        if x > best:
            best = x
        out.append(best)
    return out
"#;

fn env_usize(name: &str) -> Option<usize> {
    std::env::var(name).ok().and_then(|v| v.parse().ok())
}

fn call(tools: &Tools, name: &str, args: Value) -> Result<(Duration, Value), String> {
    let started = Instant::now();
    let result = ToolCall::parse(name, args)
        .and_then(|call| tools.call(call, &Cancel::new()))
        .map_err(|error| format!("{name}: {error}"))?;
    Ok((started.elapsed(), result.to_json()))
}

fn median(mut samples: Vec<Duration>) -> Duration {
    samples.sort();
    samples[samples.len() / 2]
}

fn main() {
    let runs = env_usize("NDB_BENCH_RUNS").unwrap_or(3).max(1);
    let mut model = ModelSpec {
        path: std::env::var_os("NDB_MODEL").map(Into::into),
        ..ModelSpec::default()
    };
    if let Some(samples) = env_usize("NDB_SAMPLES") {
        model.samples = samples.max(1);
    }
    let backend = match std::env::var("NDB_BENCH_BACKEND").as_deref() {
        Ok("trace") => Backend::Tracer,
        _ => Backend::Model,
    };
    let samples = model.samples;
    let tools = Tools::new(ServerConfig {
        model,
        allow_run: true,
        backend,
        ..ServerConfig::default()
    });
    let threads = std::thread::available_parallelism().map_or(1, |n| n.get());
    println!("agent tools, {runs} runs each, {samples} samples per prediction, {threads} cores, backend {backend:?}");
    let started = Instant::now();
    if let Err(error) = tools.warm_up() {
        eprintln!("cannot load the model: {error}");
        std::process::exit(1);
    }
    println!(
        "{:<18} {:>10.0} ms (once)",
        "model load",
        started.elapsed().as_secs_f64() * 1e3
    );

    let mut latencies: Vec<(&str, Vec<Duration>)> = Vec::new();
    let mut record = |name: &'static str, elapsed: Duration| match latencies
        .iter_mut()
        .find(|(known, _)| *known == name)
    {
        Some((_, samples)) => samples.push(elapsed),
        None => latencies.push((name, vec![elapsed])),
    };
    let mut failures = 0;
    for run in 0..runs {
        let input = format!("[{}, 1, {}, 2]", run + 3, run + 5);
        let entry_call = format!("running_max({input})");
        let mut step = |name: &'static str, args: Value| -> Option<Value> {
            match call(&tools, name, args) {
                Ok((elapsed, value)) => {
                    record(name, elapsed);
                    Some(value)
                }
                Err(error) => {
                    eprintln!("run {run}: {error}");
                    failures += 1;
                    None
                }
            }
        };
        step("list_functions", json!({ "source": SOURCE }));
        if let Some(started) = step(
            "start_session",
            json!({ "source": SOURCE, "entry_call": entry_call }),
        ) {
            let id = started["session_id"].as_str().unwrap_or("").to_string();
            for action in ["step_over", "step_over", "step_into"] {
                step("step", json!({ "session_id": id, "action": action }));
            }
            step("get_state", json!({ "session_id": id }));
            step("end_session", json!({ "session_id": id }));
        }
        step(
            "predict_output",
            json!({ "source": SOURCE, "function": "running_max", "input": input }),
        );
        step(
            "predict_at_line",
            json!({ "source": SOURCE, "entry_call": entry_call, "line": 12 }),
        );
        step(
            "suggest_inputs",
            json!({ "source": SOURCE, "function": "running_max", "output": format!("[{run}, {run}]"), "k": 2 }),
        );
        step(
            "run_trace",
            json!({ "source": SOURCE, "entry_call": entry_call, "actions": ["breakpoint:12"] }),
        );
        step(
            "check_prediction",
            json!({ "source": SOURCE, "entry_call": entry_call, "output": "[0]" }),
        );
    }
    println!(
        "{:<18} {:>10} {:>10} {:>10} {:>5}",
        "tool", "median ms", "min ms", "max ms", "calls"
    );
    for (name, samples) in latencies {
        let min = samples.iter().min().copied().unwrap_or_default();
        let max = samples.iter().max().copied().unwrap_or_default();
        let count = samples.len();
        println!(
            "{name:<18} {:>10.1} {:>10.1} {:>10.1} {count:>5}",
            median(samples).as_secs_f64() * 1e3,
            min.as_secs_f64() * 1e3,
            max.as_secs_f64() * 1e3,
        );
    }
    if failures > 0 {
        eprintln!("{failures} calls failed");
        std::process::exit(1);
    }
}

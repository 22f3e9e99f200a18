//! How quickly the editor sees predictions, through the whole server (JSON
//! over in-memory pipes, the engine, the model): the time from an edit to
//! fresh inlay hints at a breakpoint (median and p95), and from a repeated
//! request to its cached answer.
//!
//! `cargo bench --workspace --profile dev --bench latency [-- EDITS]` uses the default model
//! (`NDB_MODEL` or inference/models/default, 1 sample, threads as the model
//! chooses); without one it says so and measures the real tracer instead.

#[path = "../tests/support/client.rs"]
mod client;

use std::sync::Arc;
use std::time::{Duration, Instant};

use client::{editor_capabilities, Client};
use ndb_inference::debugger::Debugger;
use ndb_inference::neural::{ModelSpec, NeuralDebugger};
use ndb_inference::tracer::TracerConfig;
use ndb_lsp::Engine;
use serde_json::{json, Value};

const SOURCE: &str = "# ndb: weighted_sum([1, 2, 3], [3, 2, 1])
def weighted_sum(values, weights):
    total = 0
    for value, weight in zip(values, weights):
        total = total + value * weight
    return total + 0
";
const URI: &str = "file:///bench/weighted_sum.py";

fn percentile(sorted: &[Duration], share: f64) -> Duration {
    let index = ((sorted.len() as f64 - 1.0) * share).round() as usize;
    sorted[index.min(sorted.len() - 1)]
}

fn report(name: &str, mut times: Vec<Duration>) {
    times.sort();
    println!(
        "{name}: median {:.2} ms, p95 {:.2} ms ({} runs)",
        percentile(&times, 0.5).as_secs_f64() * 1e3,
        percentile(&times, 0.95).as_secs_f64() * 1e3,
        times.len()
    );
}

fn fresh(response: &Value) -> bool {
    response["result"].as_array().is_some_and(|hints| {
        !hints.is_empty()
            && hints.iter().all(|hint| {
                !hint["label"]
                    .as_str()
                    .unwrap_or("")
                    .ends_with(ndb_lsp::ide::PENDING)
            })
    })
}

async fn hints(client: &Client) -> Value {
    client
        .request(
            "textDocument/inlayHint",
            json!({"textDocument": {"uri": URI}, "range": {"start": {"line": 0, "character": 0}, "end": {"line": 100, "character": 0}}}),
        )
        .await
}

async fn until_fresh(client: &Client) -> Value {
    loop {
        let seen = client.refreshes();
        let response = hints(client).await;
        if fresh(&response) {
            return response;
        }
        client.wait_for_refresh(seen, 120).await;
    }
}

fn main() {
    let edits: usize = std::env::args()
        .skip(1)
        .find_map(|arg| arg.parse().ok())
        .unwrap_or(10);
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .expect("a runtime");
    let spec = ModelSpec {
        samples: 1,
        ..ModelSpec::default()
    };
    let started = Instant::now();
    let (debugger, name): (Arc<dyn Debugger>, String) = match NeuralDebugger::load(&spec) {
        Ok(model) => {
            let name = model.name();
            (Arc::new(model), name)
        }
        Err(error) => {
            println!("no model ({error}); measuring the real tracer instead");
            let tracer = ndb_inference::debugger::TracerDebugger::new(TracerConfig::default());
            (Arc::new(tracer), "the real tracer".to_string())
        }
    };
    println!(
        "answerer: {name} (loaded in {:.2} s), {} cores, {edits} edits",
        started.elapsed().as_secs_f64(),
        std::thread::available_parallelism().map_or(1, |cores| cores.get())
    );
    runtime.block_on(async {
        let engine = Engine::with_debugger(debugger, TracerConfig::default());
        let client = Client::start(engine, false);
        client
            .initialize(editor_capabilities(&["utf-16"]), json!({"debounceMs": 0}), None)
            .await;
        client.open(URI, SOURCE).await;
        client
            .notify("ndb/setBreakpoints", json!({"uri": URI, "lines": [4]}))
            .await;
        until_fresh(&client).await;
        let mut edit_times = Vec::new();
        for number in 1..=edits {
            // A new constant on the last line: a new text, so a new prediction.
            let started = Instant::now();
            client
                .notify(
                    "textDocument/didChange",
                    json!({"textDocument": {"uri": URI, "version": number + 1}, "contentChanges": [
                        {"range": {"start": {"line": 5, "character": 19}, "end": {"line": 5, "character": 30}}, "text": format!("{number}")}
                    ]}),
                )
                .await;
            until_fresh(&client).await;
            edit_times.push(started.elapsed());
        }
        report("edit -> fresh hints", edit_times);
        let mut cached_times = Vec::new();
        for _ in 0..50 {
            let started = Instant::now();
            let response = hints(&client).await;
            assert!(fresh(&response));
            cached_times.push(started.elapsed());
        }
        report("repeated request -> cached hints", cached_times);
        let mut hover_times = Vec::new();
        for _ in 0..20 {
            let started = Instant::now();
            client
                .request(
                    "textDocument/hover",
                    json!({"textDocument": {"uri": URI}, "position": {"line": 4, "character": 9}}),
                )
                .await;
            hover_times.push(started.elapsed());
        }
        report("repeated hover -> cached value", hover_times);
        client.finish().await;
    });
}

//! The neural debugger's cost on this machine: model load time, prompt and
//! generation throughput beside the memory-bandwidth bound for the model's
//! weights, and latency per operation (first answer, cached answer, k = 1
//! and k = 8).
//!
//! `cargo bench --workspace --profile dev --bench model [-- MODEL_PATH]` (default: the
//! shipped default model). Prints figures; asserts nothing.

use std::time::Instant;

use ndb_grammar::Action;
use ndb_inference::debugger::{Cancel, Debugger, Session, Step};
use ndb_inference::neural::{ModelSpec, NeuralDebugger};

const SOURCE: &str = include_str!("../../examples/quickstart.py");
const CALL: &str = "mean_of_evens([3, 4, 7, 10])";

/// Bytes per second one core streams when copying a buffer much larger than
/// the caches: what bounds decoding of a model that reads all its weights
/// per token.
fn memory_bandwidth() -> f64 {
    let size = 256 << 20;
    let source = vec![1u8; size];
    let mut sink = vec![0u8; size];
    let mut best = f64::MAX;
    for _ in 0..5 {
        let started = Instant::now();
        sink.copy_from_slice(&source);
        std::hint::black_box(&sink);
        best = best.min(started.elapsed().as_secs_f64());
    }
    // A copy reads and writes every byte.
    2.0 * size as f64 / best
}

fn median(mut values: Vec<f64>) -> f64 {
    values.sort_by(|a, b| a.partial_cmp(b).unwrap());
    values[values.len() / 2]
}

fn main() {
    let path = std::env::args()
        .skip(1)
        .find(|arg| !arg.starts_with('-'))
        .map(Into::into);
    let spec = ModelSpec {
        path,
        ..ModelSpec::default()
    };
    let started = Instant::now();
    let debugger = match NeuralDebugger::load(&spec) {
        Ok(debugger) => debugger,
        Err(error) => {
            eprintln!("bench model: {error}");
            std::process::exit(1);
        }
    };
    let info = debugger.info().clone();
    println!(
        "model: {} ({:?} special tokens)",
        info.path.display(),
        info.special_tokens
    );
    println!(
        "load: {:.2} s (builder {:.2} s)",
        started.elapsed().as_secs_f64(),
        info.load_seconds
    );
    let cancel = Cancel::new();
    let start = debugger
        .start(SOURCE, CALL, &cancel)
        .expect("entry call binds");
    let session = Session {
        source: SOURCE.into(),
        entry_call: Some(CALL.to_string()),
        start,
        steps: Vec::new(),
    };

    // First answers (cache cleared each time) and cached answers.
    let mut first = Vec::new();
    let mut cached = Vec::new();
    let mut prompt_rates = Vec::new();
    let mut generate_rates = Vec::new();
    for _ in 0..3 {
        debugger.clear_cache();
        let t = Instant::now();
        let answer = debugger.next(&session, Action::StepReturn, &cancel);
        first.push(t.elapsed().as_secs_f64());
        let throughput = debugger.last_throughput();
        prompt_rates.push(throughput.prompt_tokens_per_second);
        generate_rates.push(throughput.generated_tokens_per_second);
        if let Err(error) = answer {
            println!("  (answer failed: {error})");
        }
        let t = Instant::now();
        let _ = debugger.next(&session, Action::StepReturn, &cancel);
        cached.push(t.elapsed().as_secs_f64());
    }
    let throughput = debugger.last_throughput();
    println!(
        "step_return k=1: first answer {:.3} s, cached answer {:.6} s (median of 3)",
        median(first),
        median(cached)
    );
    println!(
        "prompt: {} tokens at {:.0} tokens/s; generated: {} tokens at {:.1} tokens/s",
        throughput.prompt_tokens,
        median(prompt_rates),
        throughput.generated_tokens,
        median(generate_rates)
    );
    let bandwidth = memory_bandwidth();
    let weights = info.weight_bytes as f64;
    println!(
        "memory bandwidth {:.1} GB/s: decoding bound {:.0} tokens/s for the {:.0} MB weight file{}",
        bandwidth / 1e9,
        bandwidth / weights.max(1.0),
        weights / 1e6,
        if info.path.extension().is_some_and(|e| e == "gguf") {
            format!(
                " ({:.0} tokens/s if dequantised to f32, about {:.0} MB)",
                bandwidth / (weights * 4.0 / 0.625),
                weights * 4.0 / 0.625 / 1e6
            )
        } else {
            String::new()
        }
    );

    for k in [1usize, 8] {
        debugger.clear_cache();
        let t = Instant::now();
        let result = debugger.candidates(&session, Action::StepOver, k, &cancel);
        let seconds = t.elapsed().as_secs_f64();
        match result {
            Ok(states) => println!(
                "step_over k={k}: {seconds:.3} s, {} distinct answers, top confidence {:.2}",
                states.len(),
                states[0].confidence.map_or(1.0, |c| c.share())
            ),
            Err(error) => println!("step_over k={k}: {seconds:.3} s, failed: {error}"),
        }
    }

    // A rollout of five single steps, each fed back.
    debugger.clear_cache();
    let mut rolled = session.clone();
    let t = Instant::now();
    for _ in 0..5 {
        match debugger.next(&rolled, Action::StepOver, &cancel) {
            Ok(state) => rolled.steps.push(Step {
                action: Action::StepOver,
                state,
            }),
            Err(error) => {
                println!("  (rollout stopped: {error})");
                break;
            }
        }
    }
    println!(
        "rollout: {} steps in {:.3} s",
        rolled.steps.len(),
        t.elapsed().as_secs_f64()
    );
}

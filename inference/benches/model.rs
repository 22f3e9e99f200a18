//! The neural debugger's cost on this machine: model load time, prompt and
//! generation throughput beside the memory-bandwidth bound for the model's
//! weights, and latency per operation (first answer, cached answer, k = 1
//! and k = 8).
//!
//! `cargo bench --workspace --profile dev --bench model [-- [--weights f32|f16|q8|q4] [MODEL_PATH]]`
//! (default: the shipped default model, q8). Prints figures; asserts
//! nothing.

use std::time::Instant;

use ndb_grammar::Action;
use ndb_inference::debugger::{Cancel, Debugger, Session, Step};
use ndb_inference::neural::{ModelSpec, NeuralDebugger, Weights};

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
    let args: Vec<String> = std::env::args().skip(1).collect();
    let mut path = None;
    let mut weights = Weights::default();
    let mut index = 0;
    while index < args.len() {
        if args[index] == "--weights" && index + 1 < args.len() {
            weights = args[index + 1].parse().unwrap_or_else(|error| {
                eprintln!("bench model: {error}");
                std::process::exit(2)
            });
            index += 1;
        } else if !args[index].starts_with('-') {
            path = Some(args[index].clone().into());
        }
        index += 1;
    }
    let spec = ModelSpec {
        path,
        weights,
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
        "model: {} ({:?} special tokens, weights {})",
        info.path.display(),
        info.special_tokens,
        weights.name()
    );
    println!(
        "attention kernel: {}; forward passes: {}",
        mistralrs_core::cpu_attention_kernel(),
        if mistralrs_core::ndb_forward_on_caller() {
            "on the engine's thread (NDB_FORWARD=caller)"
        } else {
            "on the rayon pool"
        }
    );
    println!(
        "load: {:.2} s (builder {:.2} s)",
        started.elapsed().as_secs_f64(),
        info.load_seconds
    );
    let cancel = Cancel::new();
    let source = ndb_inference::python::read_source(SOURCE);
    let start = debugger
        .start(&source, CALL, &cancel)
        .expect("entry call binds");
    let session = Session {
        source,
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
        median(generate_rates.clone())
    );
    let bandwidth = memory_bandwidth();
    let file_bytes = info.weight_bytes as f64;
    if weights != Weights::F32 {
        // Every float32 weight read per token in the format it is held
        // in: two bytes in half precision, Q8_0 is 34 bytes per 32
        // weights, Q4_0 18 bytes per 32.
        let bytes_per_weight = match weights {
            Weights::F16 => 2.0,
            Weights::Q8 => 34.0 / 32.0,
            _ => 18.0 / 32.0,
        };
        let bytes = file_bytes / 4.0 * bytes_per_weight;
        println!(
            "memory bandwidth {:.1} GB/s: decoding bound {:.0} tokens/s for {:.0} MB of {} weights \
             (bound reached: {:.0}%)",
            bandwidth / 1e9,
            bandwidth / bytes,
            bytes / 1e6,
            weights.name(),
            100.0 * median(generate_rates.clone()) / (bandwidth / bytes)
        );
    }
    let weights = file_bytes;
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

    // Warm model, new questions: each on a source neither the answer cache
    // nor the engine's prefix cache has seen (a first comment line makes it
    // new), the editor's case after an edit.
    let mut fresh = 0;
    let mut new_session = |debugger: &NeuralDebugger| {
        fresh += 1;
        let source = ndb_inference::python::read_source(format!("# edit {fresh}\n{SOURCE}"));
        let start = debugger
            .start(&source, CALL, &cancel)
            .expect("entry call binds");
        Session {
            source,
            entry_call: Some(CALL.to_string()),
            start,
            steps: Vec::new(),
        }
    };
    for (k, runs) in [(1usize, 5), (8, 3)] {
        let mut seconds = Vec::new();
        let mut shares = Vec::new();
        for _ in 0..runs {
            let session = new_session(&debugger);
            let t = Instant::now();
            let result = debugger.candidates(&session, Action::StepOver, k, &cancel);
            seconds.push(t.elapsed().as_secs_f64());
            match result {
                Ok(states) => shares.push(states[0].confidence.map_or(1.0, |c| c.share())),
                Err(error) => println!("  (step_over k={k} failed: {error})"),
            }
        }
        println!(
            "step_over k={k}, new source: p50 {:.3} s over {runs} (min {:.3}, max {:.3}); top share p50 {:.2}",
            median(seconds.clone()),
            seconds.iter().cloned().fold(f64::MAX, f64::min),
            seconds.iter().cloned().fold(0.0, f64::max),
            if shares.is_empty() { 0.0 } else { median(shares) }
        );
    }

    // Prefix reuse: a second question about the same source and state (a
    // document's breakpoint after its first step) shares the prompt up to
    // the action; the engine's prefix cache skips recomputing it.
    let mut cold = Vec::new();
    let mut warm = Vec::new();
    let mut tokens = 0;
    for _ in 0..3 {
        let session = new_session(&debugger);
        let _ = debugger.next(&session, Action::StepOver, &cancel);
        let first = debugger.last_throughput();
        let _ = debugger.next(&session, Action::Breakpoint(14), &cancel);
        let second = debugger.last_throughput();
        tokens = first.prompt_tokens;
        cold.push(first.prompt_seconds);
        warm.push(second.prompt_seconds);
    }
    let (cold, warm) = (median(cold), median(warm));
    println!(
        "prefix reuse: {tokens}-token prompt in {:.3} s new, {:.3} s when the source was just asked about \
         ({:.0}% of the prompt time saved, about {:.0} prefill tokens)",
        cold,
        warm,
        100.0 * (1.0 - warm / cold.max(1e-9)),
        tokens as f64 * (1.0 - warm / cold.max(1e-9)).max(0.0)
    );

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

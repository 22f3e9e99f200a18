//! Benchmark of the debugger's world, printing figures (not a timed test):
//! the tracer's overhead against an untraced run of the same programs, and
//! states per second for tree building, action replay, sampling and printing.
//!
//! Run: `cargo bench --workspace --profile dev --bench world` (reads the corpus of
//! `tests/programs/`; `NDB_BENCH_PROGRAMS=N` limits how many programs).

use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::{Duration, Instant};

use ndb_grammar::{sampler, text, Action, SamplerConfig, SplitMix64, StateTree, Walk};
use ndb_inference::tracer::{trace_file, TracerConfig};

fn corpus(limit: usize) -> Vec<(PathBuf, String)> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../tests/programs");
    let mut programs = Vec::new();
    for folder in ["hand", "generated"] {
        let Ok(entries) = std::fs::read_dir(root.join(folder)) else {
            continue;
        };
        let mut paths: Vec<PathBuf> = entries.flatten().map(|e| e.path()).collect();
        paths.sort();
        for path in paths {
            let Ok(source) = std::fs::read_to_string(&path) else {
                continue;
            };
            // Programs that never end measure the limits, not the tracer.
            if source.contains("never ends") {
                continue;
            }
            if let Some(call) = source.lines().find_map(|l| l.strip_prefix("# entry:")) {
                programs.push((path, call.trim().to_string()));
            }
        }
    }
    programs.truncate(limit);
    programs
}

/// Runs the same entry call without tracing, in a fresh interpreter, and
/// returns the wall time.
fn untraced(path: &Path, call: &str) -> Duration {
    let script = format!(
        "import importlib.util, sys\n\
         spec = importlib.util.spec_from_file_location('bench_target', {path:?})\n\
         module = importlib.util.module_from_spec(spec)\n\
         sys.modules['bench_target'] = module\n\
         spec.loader.exec_module(module)\n\
         import io, contextlib\n\
         with contextlib.redirect_stdout(io.StringIO()):\n\
         \x20   try:\n\
         \x20       eval({call:?}, vars(module))\n\
         \x20   except BaseException:\n\
         \x20       pass\n",
        path = path.to_string_lossy(),
    );
    let start = Instant::now();
    let status = Command::new("python3")
        .arg("-c")
        .arg(script)
        .status()
        .expect("python3");
    assert!(status.success());
    start.elapsed()
}

fn per_second(count: usize, elapsed: Duration) -> f64 {
    count as f64 / elapsed.as_secs_f64().max(1e-9)
}

fn main() {
    let limit = std::env::var("NDB_BENCH_PROGRAMS")
        .ok()
        .and_then(|n| n.parse().ok())
        .unwrap_or(60);
    let programs = corpus(limit);
    let config = TracerConfig::default();

    let mut untraced_total = Duration::ZERO;
    let mut traced_total = Duration::ZERO;
    let mut trees = Vec::new();
    for (path, call) in &programs {
        untraced_total += untraced(path, call);
        let start = Instant::now();
        let trace = trace_file(path, call, &config).expect("the corpus traces");
        traced_total += start.elapsed();
        trees.push(trace);
    }
    let events: usize = trees.iter().map(|t| t.events.len()).sum();
    println!("programs: {}, events: {events}", programs.len());
    println!(
        "tracer: {:.1} ms per program traced vs {:.1} ms untraced (process start included): overhead {:.2}x, {:.0} events/s",
        traced_total.as_secs_f64() * 1e3 / programs.len() as f64,
        untraced_total.as_secs_f64() * 1e3 / programs.len() as f64,
        traced_total.as_secs_f64() / untraced_total.as_secs_f64(),
        per_second(events, traced_total),
    );

    // One long run, where the traced code rather than process start counts.
    let dir = std::env::temp_dir().join(format!("ndb-bench-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let loop_file = dir.join("bench_loop.py");
    std::fs::write(
        &loop_file,
        "def work(n):\n    total = 0\n    for i in range(n):\n        total += i * i % 7\n    return total\n",
    )
    .unwrap();
    let call = "work(4000)";
    let untraced_loop = untraced(&loop_file, call);
    let start = Instant::now();
    let long = trace_file(&loop_file, call, &config).expect("the loop traces");
    let traced_loop = start.elapsed();
    println!(
        "tracer on one {}-event run: {:.0} ms traced vs {:.0} ms untraced: {:.1} us per event",
        long.events.len(),
        traced_loop.as_secs_f64() * 1e3,
        untraced_loop.as_secs_f64() * 1e3,
        (traced_loop.saturating_sub(untraced_loop)).as_secs_f64() * 1e6 / long.events.len() as f64,
    );
    let _ = std::fs::remove_dir_all(&dir);

    let start = Instant::now();
    let built: Vec<StateTree> = trees.into_iter().map(StateTree::new).collect();
    println!(
        "tree building: {:.0} states/s",
        per_second(events, start.elapsed())
    );

    let start = Instant::now();
    let mut replayed = 0;
    for tree in &built {
        let steps = tree.events().len();
        replayed += tree
            .walk(tree.start(), &vec![Action::StepOver; steps])
            .len();
        replayed += tree
            .walk(tree.start(), &vec![Action::StepInto; steps])
            .len();
    }
    println!(
        "action replay (step_into, step_over): {:.0} states/s",
        per_second(replayed, start.elapsed())
    );

    let start = Instant::now();
    let mut rng = SplitMix64::new(7);
    let mut walks: Vec<(usize, Walk, bool)> = Vec::new();
    for (index, tree) in built.iter().enumerate() {
        for _ in 0..20 {
            if let Some(walk) = sampler::sample_forward(tree, &mut rng, SamplerConfig::default()) {
                walks.push((index, walk, false));
            }
            walks.push((
                index,
                sampler::sample_inverse(tree, &mut rng, SamplerConfig::default()),
                true,
            ));
        }
    }
    let sampled: usize = walks.iter().map(|(_, w, _)| w.steps.len() + 1).sum();
    println!(
        "sampling: {:.0} states/s ({} trajectories)",
        per_second(sampled, start.elapsed()),
        walks.len()
    );

    let start = Instant::now();
    let mut bytes = 0;
    for (index, walk, inverse) in &walks {
        bytes += text::print_trajectory(&walk.to_text(&built[*index], *inverse)).len();
    }
    let elapsed = start.elapsed();
    println!(
        "printing: {:.0} states/s, {:.1} MB/s of text",
        per_second(sampled, elapsed),
        bytes as f64 / 1e6 / elapsed.as_secs_f64().max(1e-9)
    );
}

//! The fuzz driver of the agent tools: tool calls with random arguments
//! (every tool, known and unknown argument names, wrong types, huge and
//! non-ASCII text, paths inside and outside the working directory, `..`
//! and symbolic links out) through the same core `ndb mcp` serves, and
//! random lines through its wire check. No call may panic or fail as an
//! internal error; every error has a bounded message; no path outside the
//! allowed directories is ever read. Seeded SplitMix64.
//!
//! A short run is part of the tests. The long run (docs/fuzzing.md):
//! `NDB_FUZZ_CALLS=20000 nice -n 19 cargo test --workspace -j 1 --test fuzz -- --nocapture`

use std::sync::Arc;
use std::time::Instant;

use ndb_agent_tools::wire::{check, Checked};
use ndb_agent_tools::{catalog, ServerConfig, ToolCall, Tools};
use ndb_grammar::SplitMix64;
use ndb_inference::debugger::{Cancel, TracerDebugger};
use ndb_inference::tracer::TracerConfig;
use serde_json::{json, Value};

const SHORT_RUN: usize = 600;

struct Random(SplitMix64);

impl Random {
    fn below(&mut self, bound: usize) -> usize {
        if bound == 0 {
            0
        } else {
            (self.0.next_u64() % bound as u64) as usize
        }
    }
    fn pick<'a, T>(&mut self, items: &'a [T]) -> &'a T {
        &items[self.below(items.len())]
    }
    fn text(&mut self) -> String {
        const PIECES: &[&str] = &[
            "def f(x):\n",
            "    return x\n",
            "f(1)",
            "[1, 2]",
            "'é🦀'",
            "\u{0}",
            "(((",
            ")",
            ">>> f(3)\n",
            "    y = x * 2\n",
            "s1",
            "step_over",
            "breakpoint:3",
            "\\ud800",
        ];
        let mut text = String::new();
        for _ in 0..self.below(12) {
            let piece = *self.pick(PIECES);
            text.push_str(piece);
        }
        if self.below(100) == 0 {
            text.push_str(&"x = 1\n".repeat(100_000));
        }
        text
    }
    fn path(&mut self, outside: &str, link: &str) -> String {
        let choices = [
            outside.to_string(),
            link.to_string(),
            "/etc/passwd".to_string(),
            "../../../../etc/hostname".to_string(),
            "tests/fixtures".to_string(),
            "tests/fixtures/stats.py".to_string(),
            "tests/fixtures/./shapes.py".to_string(),
            "Cargo.toml".to_string(),
            "/nonexistent/x.py".to_string(),
            String::new(),
            "\u{0}".to_string(),
        ];
        self.pick(&choices).clone()
    }
    fn value(&mut self, depth: usize) -> Value {
        match self.below(if depth > 1 { 5 } else { 7 }) {
            0 => Value::Null,
            1 => json!(self.below(2) == 0),
            2 => json!(*self.pick(&[-1i64, 0, 3, 12, u32::MAX as i64, i64::MAX])),
            3 | 4 => json!(self.text()),
            5 => Value::Array((0..self.below(4)).map(|_| self.value(depth + 1)).collect()),
            _ => json!({"nested": self.value(depth + 1)}),
        }
    }
}

/// Python the calls name: mostly a small valid file, sometimes not.
const SOURCES: &[&str] = &[
    "def f(x):\n    y = [x] * 2\n    return y\n",
    "def f(x, k=1):\n    total = 0\n    for i in range(3):\n        total += i * k\n    return total + x\n",
    "def f(x):\n    raise ValueError(x)\n",
    "def f(:\n",
    "x = 1\n",
];

/// Arguments for `tool`: mostly the names it takes with values of the
/// right type (so calls get past parsing), sometimes wrong types, unknown
/// names or nothing at all.
fn arguments_for(random: &mut Random, tool: &str, outside: &str, link: &str) -> Value {
    if random.below(25) == 0 {
        return random.value(0);
    }
    let mut arguments = serde_json::Map::new();
    let takes_source = !matches!(tool, "step" | "get_state" | "end_session");
    if takes_source && random.below(10) < 9 {
        if random.below(2) == 0 {
            arguments.insert("source".into(), json!(*random.pick(SOURCES)));
        } else {
            arguments.insert("path".into(), json!(random.path(outside, link)));
        }
    }
    let mut put = |key: &str, value: Value| {
        arguments.insert(key.to_string(), value);
    };
    let entry = json!(*random.pick(&[
        "f(1)",
        "f(2, k=3)",
        "clamp(15, 0, 10)",
        "fib(4)",
        "f(",
        "g()",
        "f([1, 'é'])",
        "__import__('os').getcwd()"
    ]));
    let session_id = json!(*random.pick(&["s1", "s2", "s3", "s999", ""]));
    let action = json!(*random.pick(&[
        "step_over",
        "step_into",
        "step_return",
        "breakpoint",
        "continue",
        "inv_step_over",
        "jump",
        ""
    ]));
    let line = json!(*random.pick(&[1i64, 2, 3, 0, -1, 99_999]));
    match tool {
        "start_session" | "predict_at_line" | "run_trace" => {
            put("entry_call", entry);
            if tool == "predict_at_line" {
                put("line", line);
            }
            if tool == "run_trace" {
                put("actions", json!(["step_over", "breakpoint:3", "continue"]));
            }
        }
        "step" => {
            put("session_id", session_id);
            put("action", action);
            put("line", line);
        }
        "get_state" | "end_session" => put("session_id", session_id),
        "predict_output" | "suggest_inputs" => {
            put(
                "function",
                json!(*random.pick(&["f", "clamp", "fib", "g", ""])),
            );
            put(
                if tool == "predict_output" {
                    "input"
                } else {
                    "output"
                },
                json!(*random.pick(&["1", "[1, 2]", "(", "'x'"])),
            );
        }
        "check_prediction" => {
            if random.below(2) == 0 {
                put("session_id", session_id);
            } else {
                put("entry_call", entry);
                put("output", json!(*random.pick(&["[1, 1]", "3", "None"])));
            }
        }
        _ => {}
    }
    if random.below(8) == 0 {
        let key = *random.pick(&[
            "names",
            "all_locals",
            "samples",
            "k",
            "verify",
            "mode",
            "bogus",
            "line",
        ]);
        let value = random.value(0);
        arguments.insert(key.to_string(), value);
    }
    Value::Object(arguments)
}

#[test]
fn tool_calls_with_random_arguments_never_panic_or_escape_the_roots() {
    let calls = std::env::var("NDB_FUZZ_CALLS")
        .ok()
        .and_then(|text| text.parse().ok())
        .unwrap_or(SHORT_RUN);
    let seed = std::env::var("NDB_FUZZ_SEED")
        .ok()
        .and_then(|text| text.parse().ok())
        .unwrap_or(16);
    // A file outside the working directory (the package root under cargo
    // test), and a link to it from inside.
    let outside_dir = std::env::temp_dir().join(format!("ndb-fuzz-outside-{}", std::process::id()));
    std::fs::create_dir_all(&outside_dir).unwrap();
    let outside = outside_dir.join("secret.py");
    std::fs::write(
        &outside,
        "TOKEN = 'must not be read'\ndef leaked_secret_function(x):\n    return x\n",
    )
    .unwrap();
    let link_path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("target-fuzz-link.py");
    let _ = std::fs::remove_file(&link_path);
    #[cfg(unix)]
    std::os::unix::fs::symlink(&outside, &link_path).unwrap();
    let (outside_text, link_text) = (
        outside.display().to_string(),
        link_path.display().to_string(),
    );

    // The real tracer answers predictions (so sessions start and step),
    // and running code is allowed: the calls reach every path of the core.
    let tracer = TracerConfig {
        time_limit: std::time::Duration::from_secs(2),
        ..TracerConfig::default()
    };
    let tools = Tools::with_debugger(
        ServerConfig {
            max_sessions: 4,
            allow_run: true,
            tracer: tracer.clone(),
            ..ServerConfig::default()
        },
        Arc::new(TracerDebugger::new(tracer)),
    );
    let names: Vec<&str> = catalog::TOOL_NAMES.to_vec();
    let mut random = Random(SplitMix64::new(seed));
    let started = Instant::now();
    let (mut ok, mut errors, mut refused_paths) = (0usize, 0usize, 0usize);
    for index in 0..calls {
        let name = if random.below(20) == 0 {
            "no_such_tool"
        } else {
            *random.pick(&names)
        };
        let arguments = arguments_for(&mut random, name, &outside_text, &link_text);
        let shown = arguments.to_string();
        let outcome = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
            ToolCall::parse(name, arguments).and_then(|call| tools.call(call, &Cancel::new()))
        }));
        let result = outcome.unwrap_or_else(|_| {
            panic!(
                "call {index} of seed {seed} panicked: {name} {}",
                &shown[..shown.len().min(300)]
            )
        });
        match result {
            Ok(output) => {
                let text = output.to_json().to_string();
                assert!(
                    !text.contains("must not be read") && !text.contains("leaked_secret_function"),
                    "call {index} of seed {seed} read a file outside the roots: {name} {shown:.300}"
                );
                ok += 1;
            }
            Err(error) => {
                assert_ne!(
                    error.kind(),
                    "internal",
                    "call {index} of seed {seed}: {name} {shown:.300}: {}",
                    error.message()
                );
                assert!(!error.message().is_empty() && error.message().chars().count() <= 1_100);
                assert!(!error.message().contains("must not be read"));
                refused_paths += usize::from(error.kind() == "path_outside_roots");
                errors += 1;
            }
        }
    }
    // Random lines through the wire check: never a panic, and only JSON
    // objects or arrays pass.
    for _ in 0..calls {
        let mut line: Vec<u8> = (0..random.below(40))
            .map(|_| random.0.next_u64() as u8)
            .collect();
        if random.below(2) == 0 {
            line = random.text().into_bytes();
        }
        if let Checked::Pass = check(&line) {
            let value: Value = serde_json::from_slice(&line).expect("what passes is JSON");
            assert!(value.is_object() || value.is_array());
        }
    }
    let _ = std::fs::remove_file(&link_path);
    let _ = std::fs::remove_dir_all(&outside_dir);
    assert!(refused_paths > 0, "no call tried a path outside the roots");
    eprintln!(
        "mcp fuzz: {calls} tool calls from seed {seed} in {:.1} s: {ok} answered, {errors} tool errors ({refused_paths} paths refused), no panic; {calls} random lines checked",
        started.elapsed().as_secs_f64()
    );
}

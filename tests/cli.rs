//! Black-box tests of `ndb trace` and `ndb step`: the real binary, the real
//! Python interpreter, outputs compared with snapshots.

use std::path::PathBuf;
use std::process::{Command, Output};

fn ndb(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_ndb"))
        .args(args)
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .output()
        .expect("ndb runs")
}

fn stdout_of(args: &[&str]) -> String {
    let output = ndb(args);
    assert!(
        output.status.success(),
        "ndb {args:?} failed: {}",
        String::from_utf8_lossy(&output.stderr)
    );
    String::from_utf8(output.stdout).expect("utf-8 output")
}

fn stderr_of_failure(args: &[&str]) -> String {
    let output = ndb(args);
    assert!(!output.status.success(), "ndb {args:?} should fail");
    assert!(output.stdout.is_empty(), "nothing on stdout when failing");
    String::from_utf8(output.stderr).expect("utf-8 errors")
}

fn fixture(name: &str) -> String {
    let path = PathBuf::from("tests/fixtures").join(name);
    path.to_string_lossy().into_owned()
}

#[test]
fn step_over_the_quickstart_example() {
    insta::assert_snapshot!(stdout_of(&[
        "step",
        "examples/quickstart.py",
        "--call",
        "mean_of_evens([3, 4, 7, 10])",
        "--actions",
        "step_over,step_over,step_into,step_into,step_into,step_return,breakpoint:14,step_return,continue",
    ]));
}

#[test]
fn inverse_actions_start_from_the_state_reached() {
    insta::assert_snapshot!(stdout_of(&[
        "step",
        "examples/quickstart.py",
        "--call",
        "mean_of_evens([3, 4, 7, 10])",
        "--actions",
        "continue,inv_step_over,inv_step_over,inv_step_into,inv_step_into,inv_step_call,inv_step_into",
    ]));
}

#[test]
fn text_format_prints_the_text_language() {
    insta::assert_snapshot!(stdout_of(&[
        "step",
        &fixture("same_text.py"),
        "--call",
        "clamp(12, 0, 10)",
        "--actions",
        "step_over,step_over,step_over,breakpoint:7,step_into,inv_step_call",
        "--format",
        "text",
    ]));
}

#[test]
fn generators_step_like_pdb() {
    insta::assert_snapshot!(stdout_of(&[
        "step",
        &fixture("generators.py"),
        "--call",
        "total(2)",
        "--actions",
        "step_over,step_over,step_into,step_over,step_over,step_over,step_return,step_return",
    ]));
}

#[test]
fn trace_prints_the_whole_run() {
    let out = stdout_of(&["trace", &fixture("raises.py"), "--call", "parse_age('-3')"]);
    insta::assert_snapshot!(out);
}

#[test]
fn an_uncaught_exception_ends_in_an_error_exit() {
    let out = stdout_of(&[
        "step",
        &fixture("raises.py"),
        "--call",
        "parse_age('x')",
        "--actions",
        "continue",
    ]);
    let last: serde_json::Value = serde_json::from_str(out.lines().last().unwrap()).unwrap();
    assert_eq!(last["event"], "exit");
    assert_eq!(last["status"], "error");
    assert!(last["value"].as_str().unwrap().starts_with("ValueError("));
}

#[test]
fn a_breakpoint_never_reached_lands_on_the_exit() {
    let out = stdout_of(&[
        "step",
        &fixture("raises.py"),
        "--call",
        "parse_age('5')",
        "--actions",
        "breakpoint:4",
    ]);
    let last: serde_json::Value = serde_json::from_str(out.lines().last().unwrap()).unwrap();
    assert_eq!(last["event"], "exit");
    assert_eq!(last["status"], "normal");
    assert_eq!(last["value"], "5");
}

#[test]
fn a_program_that_never_ends_is_cut_off() {
    let output = ndb(&[
        "step",
        &fixture("loops_forever.py"),
        "--call",
        "spin(1)",
        "--actions",
        "breakpoint:4,continue",
        "--max-events",
        "500",
    ]);
    assert!(output.status.success());
    let out = String::from_utf8(output.stdout).unwrap();
    let states: Vec<serde_json::Value> = out
        .lines()
        .map(|line| serde_json::from_str(line).unwrap())
        .collect();
    assert_eq!(states[1]["line"], 4);
    assert_eq!(states[1]["locals"]["i"], "0");
    assert_eq!(states[2]["status"], "never");
    let stderr = String::from_utf8(output.stderr).unwrap();
    assert!(stderr.contains("event limit"), "{stderr}");
}

#[test]
fn bad_input_gets_a_clear_error() {
    let syntax = stderr_of_failure(&[
        "step",
        &fixture("syntax_error.py"),
        "--call",
        "f(1)",
        "--actions",
        "step_into",
    ]);
    assert!(syntax.contains("syntax error"), "{syntax}");
    assert!(syntax.contains("line 2"), "{syntax}");

    let not_a_call = stderr_of_failure(&["trace", &fixture("raises.py"), "--call", "parse_age("]);
    assert!(not_a_call.contains("parse_age("), "{not_a_call}");

    let unknown = stderr_of_failure(&["trace", &fixture("raises.py"), "--call", "nothing_here(1)"]);
    assert!(unknown.contains("nothing_here"), "{unknown}");

    let action = stderr_of_failure(&[
        "step",
        &fixture("raises.py"),
        "--call",
        "parse_age('1')",
        "--actions",
        "step_into,jump",
    ]);
    assert!(action.contains("unknown action `jump`"), "{action}");

    let missing = stderr_of_failure(&["trace", "tests/fixtures/no_such_file.py", "--call", "f()"]);
    assert!(missing.contains("no such file"), "{missing}");

    let python = stderr_of_failure(&[
        "trace",
        &fixture("raises.py"),
        "--call",
        "parse_age('1')",
        "--python",
        "/nonexistent/python3",
    ]);
    assert!(python.contains("/nonexistent/python3"), "{python}");
}

#[test]
fn what_the_program_prints_is_captured_and_bounded() {
    let out = stdout_of(&[
        "trace",
        &fixture("chatty.py"),
        "--call",
        "chatter(20000)",
        "--max-output-kb",
        "4",
        "--max-events",
        "200000",
        "--time-limit",
        "60",
    ]);
    let exit: serde_json::Value = serde_json::from_str(out.lines().last().unwrap()).unwrap();
    assert_eq!(exit["status"], "normal");
    assert_eq!(exit["value"], "199990000");
    let printed = exit["stdout"].as_str().unwrap();
    assert!(printed.starts_with("line 0 xxx"), "{}", &printed[..40]);
    assert!(
        printed.len() < 4 * 1024 + 100,
        "{} bytes kept",
        printed.len()
    );
    assert!(printed.contains("...<+"), "the cut is marked");
    // The program's prints never reach ndb's own stdout.
    assert!(out.lines().all(|line| line.starts_with('{')));
}

#[test]
fn trace_in_the_text_language_is_the_run_stepped_into() {
    insta::assert_snapshot!(stdout_of(&[
        "trace",
        &fixture("raises.py"),
        "--call",
        "parse_age('-3')",
        "--format",
        "text",
    ]));
}

/// The exit line of `ndb trace` (its last line), as JSON.
fn exit_line(output: &Output) -> serde_json::Value {
    let stdout = String::from_utf8_lossy(&output.stdout);
    let last = stdout.lines().last().unwrap_or_default();
    serde_json::from_str(last).unwrap_or_else(|_| panic!("not JSON: {stdout}"))
}

#[test]
fn code_runs_sandboxed_without_the_users_secrets() {
    let output = Command::new(env!("CARGO_BIN_EXE_ndb"))
        .args(["trace", &fixture("hostile.py"), "--call"])
        .arg("environment('GITHUB_TOKEN', 'NDB_PLAIN')")
        .env("GITHUB_TOKEN", "ghp_must_not_leak")
        .env("NDB_PLAIN", "kept")
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .output()
        .expect("ndb runs");
    assert!(
        output.status.success(),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    let exit = exit_line(&output);
    assert_eq!(exit["value"], "(None, 'kept')", "{exit}");
    assert_eq!(exit["sandbox"], "sandboxed", "{exit}");
}

#[test]
fn a_kernel_without_a_rule_is_reported_and_can_be_refused() {
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let port = listener.local_addr().unwrap().port();
    let call = format!("connect({port})");
    let run = |extra: &[&str]| {
        Command::new(env!("CARGO_BIN_EXE_ndb"))
            .args(["trace", &fixture("hostile.py"), "--call", &call])
            .args(extra)
            .env("NDB_SANDBOX_ABI", "3")
            .current_dir(env!("CARGO_MANIFEST_DIR"))
            .output()
            .expect("ndb runs")
    };
    // As on a kernel with Landlock ABI 3: no network rule, and it says so.
    let partial = run(&[]);
    assert!(
        partial.status.success(),
        "{}",
        String::from_utf8_lossy(&partial.stderr)
    );
    let exit = exit_line(&partial);
    assert_eq!(
        exit["value"], "'connected'",
        "the network rule was really not applied: {exit}"
    );
    let sandbox = exit["sandbox"].as_str().unwrap_or_default();
    assert!(
        sandbox.starts_with("partly sandboxed: the kernel (Landlock ABI 3) lacks network"),
        "{sandbox}"
    );
    assert!(String::from_utf8_lossy(&partial.stderr).contains("partly sandboxed"));
    listener.accept().expect("the connection arrived");

    // --require-sandbox refuses to run at all.
    listener.set_nonblocking(true).unwrap();
    let refused = run(&["--require-sandbox"]);
    assert!(!refused.status.success());
    assert!(refused.stdout.is_empty());
    let message = String::from_utf8_lossy(&refused.stderr);
    assert!(
        message.contains("refusing to run the code: it would be partly sandboxed")
            && message.contains("network"),
        "{message}"
    );
    std::thread::sleep(std::time::Duration::from_millis(100));
    assert!(listener.accept().is_err(), "the refused program ran");
}

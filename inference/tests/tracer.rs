//! End-to-end tests of the real tracer: each runs `python3` on a fixture of
//! `tests/fixtures/` and checks the recorded trace, mostly as a snapshot of a
//! compact rendering (one line per event, then the exit).

use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::{Duration, Instant};

use ndb_grammar::{Event, EventKind, ExitStatus, Trace};
use ndb_inference::tracer::{
    trace_file, trace_source, write_tracer_script, TracerConfig, TracerError, TRACER_SCRIPT,
};

fn fixture(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures")
        .join(name)
}

fn trace(name: &str, call: &str) -> Trace {
    trace_with(name, call, &TracerConfig::default())
}

fn trace_with(name: &str, call: &str, config: &TracerConfig) -> Trace {
    trace_file(&fixture(name), call, config)
        .unwrap_or_else(|error| panic!("tracing {name} `{call}`: {error}"))
}

fn trace_error(name: &str, call: &str) -> TracerError {
    match trace_file(&fixture(name), call, &TracerConfig::default()) {
        Ok(trace) => panic!("tracing {name} `{call}` succeeded: {}", render(&trace)),
        Err(error) => error,
    }
}

/// One line per event: kind, line, depth, frame (`<` its parent), function
/// (`*` for generators), locals, then `->` the value; then the exit.
fn render(trace: &Trace) -> String {
    let mut text = String::new();
    for event in &trace.events {
        text.push_str(&render_event(event));
        text.push('\n');
    }
    text.push_str(&format!(
        "exit {} value={:?} reason={:?}\n",
        trace.exit.status.as_str(),
        trace.exit.value,
        trace.exit.reason
    ));
    if !trace.stdout.is_empty() {
        text.push_str(&format!("stdout {:?}\n", trace.stdout));
    }
    text
}

fn render_event(event: &Event) -> String {
    let parent = event
        .parent_frame
        .map(|parent| format!("<{parent}"))
        .unwrap_or_default();
    let generator = if event.generator { "*" } else { "" };
    let locals: Vec<String> = event
        .locals
        .iter()
        .map(|(name, value)| format!("{name}={value}"))
        .collect();
    let mut line = format!(
        "{:<9} L{:<2} d{} f{}{} {}{} {{{}}}",
        event.kind.as_str(),
        event.line,
        event.depth,
        event.frame,
        parent,
        event.function,
        generator,
        locals.join(", ")
    );
    if let Some(value) = &event.value {
        line.push_str(&format!(" -> {value}"));
    }
    if let Some(exception_type) = &event.exception_type {
        line.push_str(&format!(
            " ({exception_type}{})",
            if event.traceback_is_none {
                ", no traceback"
            } else {
                ""
            }
        ));
    }
    line
}

fn kinds(trace: &Trace) -> Vec<EventKind> {
    trace.events.iter().map(|event| event.kind).collect()
}

#[test]
fn simple_loop() {
    let trace = trace("loop_sum.py", "total(3)");
    assert_eq!(trace.entry_call, "total(3)");
    assert!(trace.source.contains("def total(n):"));
    assert_eq!(trace.exit.status, ExitStatus::Normal);
    assert_eq!(trace.exit.value.as_deref(), Some("3"));
    assert!(trace
        .events
        .iter()
        .all(|event| event.depth == 0 && event.frame == trace.events[0].frame));
    insta::assert_snapshot!(render(&trace));
}

#[test]
fn nested_calls() {
    let trace = trace("calls.py", "outer(2)");
    let inner = trace
        .events
        .iter()
        .find(|event| event.function == "inner")
        .unwrap();
    assert_eq!(inner.depth, 1);
    assert_eq!(inner.parent_frame, Some(trace.events[0].frame));
    insta::assert_snapshot!(render(&trace));
}

#[test]
fn recursive_calls() {
    let trace = trace("calls.py", "fact(3)");
    let calls: Vec<(u32, u32, Option<u32>)> = trace
        .events
        .iter()
        .filter(|event| event.kind == EventKind::Call)
        .map(|event| (event.depth, event.frame, event.parent_frame))
        .collect();
    assert_eq!(calls.len(), 3);
    for window in calls.windows(2) {
        assert_eq!(window[1].0, window[0].0 + 1);
        assert_eq!(window[1].2, Some(window[0].1));
    }
    assert_eq!(trace.exit.value.as_deref(), Some("6"));
    insta::assert_snapshot!(render(&trace));
}

#[test]
fn frames_called_from_library_code_are_traced() {
    let lambda_calls = |trace: &Trace| -> Vec<(u32, Option<u32>)> {
        trace
            .events
            .iter()
            .filter(|event| event.function == "<lambda>" && event.kind == EventKind::Call)
            .map(|event| (event.depth, event.parent_frame))
            .collect()
    };
    // `sorted` is C code: it has no frame, so the caller is the parent.
    let through_c = trace("calls.py", "via_library([1, 3, 2])");
    let caller = Some(through_c.events[0].frame);
    assert_eq!(lambda_calls(&through_c), vec![(1, caller); 3]);
    assert_eq!(through_c.exit.value.as_deref(), Some("[3, 2, 1]"));
    // `heapq.nlargest` is Python code of another file between the caller and
    // the lambda: depth counts only frames of the traced file, and the parent
    // (the frame right below) is not one of them.
    let through_python = trace("calls.py", "via_python_library([1, 3, 2])");
    let calls = lambda_calls(&through_python);
    assert!(calls.len() >= 3, "{calls:?}");
    assert!(calls.iter().all(|call| *call == (1, None)), "{calls:?}");
    assert_eq!(through_python.exit.value.as_deref(), Some("[1, 2]"));
}

#[test]
fn generator_keeps_its_frame_across_resumptions() {
    let trace = trace("gens.py", "consume()");
    let generator_events: Vec<&Event> = trace
        .events
        .iter()
        .filter(|event| event.function == "countdown")
        .collect();
    assert!(generator_events.iter().all(|event| event.generator));
    assert!(generator_events
        .iter()
        .all(|event| event.frame == generator_events[0].frame));
    let resumptions = generator_events
        .iter()
        .filter(|event| event.kind == EventKind::Call)
        .count();
    assert_eq!(resumptions, 3);
    assert!(trace
        .events
        .iter()
        .filter(|event| event.function == "consume")
        .all(|event| !event.generator));
    assert_eq!(trace.exit.value.as_deref(), Some("[2, 1]"));
    insta::assert_snapshot!(render(&trace));
}

#[test]
fn uncaught_exception() {
    let trace = trace("errors.py", "fails(7)");
    assert_eq!(trace.exit.status, ExitStatus::Error);
    assert_eq!(trace.exit.value.as_deref(), Some("ValueError('bad 7')"));
    let exceptions: Vec<(&str, u32)> = trace
        .events
        .iter()
        .filter(|event| event.kind == EventKind::Exception)
        .map(|event| (event.function.as_str(), event.depth))
        .collect();
    assert_eq!(exceptions, vec![("helper", 1), ("fails", 0)]);
    insta::assert_snapshot!(render(&trace));
}

#[test]
fn caught_exception() {
    let trace = trace("errors.py", "recovers()");
    assert_eq!(trace.exit.status, ExitStatus::Normal);
    assert_eq!(trace.exit.value.as_deref(), Some("'bad 1'"));
    insta::assert_snapshot!(render(&trace));
}

#[test]
fn system_exit_is_an_error_exit() {
    let trace = trace("errors.py", "exits()");
    assert_eq!(trace.exit.status, ExitStatus::Error);
    assert_eq!(trace.exit.value.as_deref(), Some("SystemExit(4)"));
}

#[test]
fn syntax_error_names_the_line() {
    let error = trace_error("broken_syntax.py", "fine()");
    let TracerError::Syntax(message) = &error else {
        panic!("not a syntax error: {error:?}");
    };
    assert!(message.contains("broken_syntax.py line 4"), "{message}");
}

#[test]
fn bad_entry_calls() {
    for (call, fragment) in [
        ("total(", "does not parse"),
        ("3 + 4", "not a call expression"),
        ("missing(1)", "name 'missing' is not defined"),
        ("LIMIT()", "is not callable"),
        ("total(1 / 0)", "ZeroDivisionError"),
    ] {
        match trace_error("loop_sum.py", call) {
            TracerError::EntryCall(message) => {
                assert!(message.contains(fragment), "`{call}`: {message}")
            }
            other => panic!("`{call}`: {other:?}"),
        }
    }
}

#[test]
fn entry_call_running_no_code_of_the_file() {
    match trace_error("loop_sum.py", "len([1, 2])") {
        TracerError::NoEvents { entry_call } => assert_eq!(entry_call, "len([1, 2])"),
        other => panic!("{other:?}"),
    }
}

#[test]
fn top_level_that_raises() {
    match trace_error("raising_top_level.py", "fine()") {
        TracerError::Load(message) => {
            assert!(
                message.contains("RuntimeError('top level failed') at line 5"),
                "{message}"
            )
        }
        other => panic!("{other:?}"),
    }
}

#[test]
fn top_level_that_never_finishes() {
    let config = TracerConfig {
        time_limit: Duration::from_secs(1),
        ..TracerConfig::default()
    };
    let started = Instant::now();
    match trace_file(&fixture("slow_top_level.py"), "never_reached()", &config) {
        Err(TracerError::Load(message)) => assert!(message.contains("did not finish"), "{message}"),
        other => panic!("{other:?}"),
    }
    assert!(started.elapsed() < Duration::from_secs(10));
}

#[test]
fn missing_interpreter() {
    let config = TracerConfig {
        python: PathBuf::from("/nonexistent/python3"),
        ..TracerConfig::default()
    };
    let error = trace_file(&fixture("loop_sum.py"), "total(1)", &config).unwrap_err();
    assert!(
        matches!(error, TracerError::PythonNotFound { .. }),
        "{error:?}"
    );
    let message = error.to_string();
    assert!(
        message.contains("`/nonexistent/python3`") && message.contains("--python"),
        "{message}"
    );
}

#[test]
fn event_limit() {
    let config = TracerConfig {
        max_events: 500,
        ..TracerConfig::default()
    };
    let trace = trace_with("limits.py", "spin()", &config);
    assert_eq!(trace.events.len(), 500);
    assert_eq!(trace.exit.status, ExitStatus::Never);
    assert_eq!(
        trace.exit.reason.as_deref(),
        Some("event limit of 500 events reached")
    );
}

#[test]
fn endless_loop_stops_at_the_time_limit() {
    let config = TracerConfig {
        max_events: usize::MAX / 2,
        max_protocol_bytes: usize::MAX / 2,
        time_limit: Duration::from_secs(2),
        ..TracerConfig::default()
    };
    let started = Instant::now();
    let trace = trace_with("limits.py", "spin()", &config);
    assert!(
        started.elapsed() < Duration::from_secs(8),
        "{:?}",
        started.elapsed()
    );
    assert!(trace.events.len() > 10);
    assert_eq!(trace.exit.status, ExitStatus::Never);
    assert_eq!(
        trace.exit.reason.as_deref(),
        Some("time limit of 2s reached")
    );
}

#[test]
fn call_stuck_outside_the_file_is_killed_at_the_time_limit() {
    let config = TracerConfig {
        time_limit: Duration::from_secs(1),
        ..TracerConfig::default()
    };
    let started = Instant::now();
    let trace = trace_with("limits.py", "sleepy()", &config);
    assert!(
        started.elapsed() < Duration::from_secs(8),
        "{:?}",
        started.elapsed()
    );
    assert_eq!(kinds(&trace), vec![EventKind::Call, EventKind::Line]);
    assert_eq!(trace.exit.status, ExitStatus::Never);
    assert_eq!(
        trace.exit.reason.as_deref(),
        Some("time limit of 1s reached")
    );
}

#[test]
fn megabytes_of_output_are_capped() {
    let trace = trace("limits.py", "chatty()");
    assert_eq!(trace.exit.status, ExitStatus::Normal);
    assert_eq!(trace.exit.value.as_deref(), Some("'done'"));
    let prints = trace
        .events
        .iter()
        .filter(|event| event.kind == EventKind::Line && event.line == 16)
        .count();
    assert_eq!(prints, 2000);
    let kept = 64 * 1024;
    let printed = 2000 * 1001;
    assert_eq!(trace.stdout, expected_stdout(kept, printed));
}

fn expected_stdout(kept: usize, printed: usize) -> String {
    let line = format!("{}\n", "x".repeat(1000));
    let full = line.repeat(printed / line.len());
    format!("{}...<+{} bytes>", &full[..kept], printed - kept)
}

#[test]
fn endless_allocation_stops_at_the_memory_limit() {
    let config = TracerConfig {
        memory_limit_bytes: 512 << 20,
        max_events: 1_000_000,
        time_limit: Duration::from_secs(30),
        ..TracerConfig::default()
    };
    let trace = trace_with("limits.py", "hog()", &config);
    assert!(trace.events.len() > 10);
    assert_eq!(trace.exit.status, ExitStatus::Never);
    assert_eq!(
        trace.exit.reason.as_deref(),
        Some("memory limit of 536870912 bytes reached")
    );
}

#[test]
fn os_exit_keeps_the_events_before_it() {
    let trace = trace("limits.py", "bail()");
    assert_eq!(
        kinds(&trace),
        vec![EventKind::Call, EventKind::Line, EventKind::Line]
    );
    assert_eq!(
        trace.events[2].locals,
        vec![("x".to_string(), "1".to_string())]
    );
    assert_eq!(trace.exit.status, ExitStatus::Error);
    assert_eq!(
        trace.exit.value.as_deref(),
        Some("<process exited with code 3 before the call returned>")
    );
    assert!(trace.exit.reason.as_deref().unwrap().contains("code 3"));
}

#[test]
fn crash_keeps_the_events_before_it() {
    let trace = trace("limits.py", "crash()");
    assert_eq!(
        kinds(&trace),
        vec![EventKind::Call, EventKind::Line, EventKind::Line]
    );
    assert_eq!(trace.exit.status, ExitStatus::Error);
    assert_eq!(
        trace.exit.value.as_deref(),
        Some("<process was killed by signal 11 (SIGSEGV) before the call returned>")
    );
}

#[test]
fn protocol_output_limit() {
    let config = TracerConfig {
        max_events: usize::MAX / 2,
        max_protocol_bytes: 20_000,
        ..TracerConfig::default()
    };
    let trace = trace_with("limits.py", "spin()", &config);
    assert!(
        !trace.events.is_empty() && trace.events.len() < 200,
        "{}",
        trace.events.len()
    );
    assert_eq!(trace.exit.status, ExitStatus::Never);
    assert_eq!(
        trace.exit.reason.as_deref(),
        Some("tracer output limit of 20000 bytes reached")
    );
}

#[test]
fn repr_that_raises() {
    let trace = trace("objects.py", "bad_local()");
    let last_line = trace
        .events
        .iter()
        .rfind(|event| event.kind == EventKind::Line)
        .unwrap();
    assert_eq!(
        last_line.locals,
        vec![("obj".to_string(), "<repr failed: RuntimeError>".to_string())]
    );
    assert_eq!(trace.exit.value.as_deref(), Some("1"));
}

#[test]
fn huge_locals_are_bounded() {
    let trace = trace("objects.py", "huge_local()");
    insta::assert_snapshot!(render(&trace));
    let last = trace.events.last().unwrap();
    let big = &last
        .locals
        .iter()
        .find(|(name, _)| name == "big")
        .unwrap()
        .1;
    assert!(big.ends_with(", 49, ...<+950>]"), "{big}");
    let text = &last
        .locals
        .iter()
        .find(|(name, _)| name == "text")
        .unwrap()
        .1;
    assert_eq!(*text, format!("'{}'...<+300 chars>", "z".repeat(200)));
}

#[test]
fn default_repr_has_no_address() {
    let trace = trace("objects.py", "plain()");
    assert_eq!(
        trace.exit.value.as_deref(),
        Some("<objects.Plain object at 0x...>")
    );
    insta::assert_snapshot!(render(&trace));
}

#[test]
fn decorated_function() {
    let trace = trace("objects.py", "double(4)");
    let functions: Vec<(&str, u32)> = trace
        .events
        .iter()
        .filter(|event| event.kind == EventKind::Call)
        .map(|event| (event.function.as_str(), event.depth))
        .collect();
    assert_eq!(functions, vec![("wrapper", 0), ("double", 1)]);
    insta::assert_snapshot!(render(&trace));
}

#[test]
fn method_call() {
    let trace = trace("objects.py", "Counter(3).bump()");
    // `Counter(3)` is evaluated before tracing starts: only `bump` is traced.
    assert!(trace.events.iter().all(|event| event.function == "bump"));
    assert_eq!(trace.exit.value.as_deref(), Some("4"));
    insta::assert_snapshot!(render(&trace));
}

#[test]
fn source_text() {
    let source = "def square(x):\n    return x * x\n";
    let trace = trace_source(source, "square(5)", &TracerConfig::default()).unwrap();
    assert_eq!(trace.source, source);
    assert_eq!(trace.exit.value.as_deref(), Some("25"));
    assert_eq!(
        kinds(&trace),
        vec![EventKind::Call, EventKind::Line, EventKind::Return]
    );

    match trace_source("def f(:\n", "f()", &TracerConfig::default()) {
        Err(TracerError::Syntax(message)) => assert!(
            message.starts_with("syntax error in <source> line 1"),
            "{message}"
        ),
        other => panic!("{other:?}"),
    }
}

fn python(arguments: &[&str]) -> std::process::Output {
    Command::new("python3")
        .args(arguments)
        .output()
        .expect("python3 runs")
}

#[test]
fn bounded_repr_equals_repr_on_small_values() {
    let directory = scratch_directory("self-test");
    let script = write_tracer_script(&directory).unwrap();
    assert_eq!(std::fs::read_to_string(&script).unwrap(), TRACER_SCRIPT);
    let output = python(&[script.to_str().unwrap(), "--self-test"]);
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(output.status.success(), "{stderr}");
    assert!(stderr.contains("self-test passed"), "{stderr}");
}

#[test]
fn script_imports_without_side_effects() {
    let directory = scratch_directory("import");
    let script = write_tracer_script(&directory).unwrap();
    let program = format!(
        "import importlib.util, sys\n\
         spec = importlib.util.spec_from_file_location('ndb_tracer', {script:?})\n\
         module = importlib.util.module_from_spec(spec)\n\
         spec.loader.exec_module(module)\n\
         target = module.load_target({fixture:?})\n\
         function, args, kwargs = module.parse_entry_call('total(*[4])', vars(target))\n\
         print(module.bounded_repr(list(range(60))[::-1], max_items=2), function(*args, **kwargs))\n\
         print(target.__name__, sys.path[0] == {fixtures:?})\n",
        script = script.to_str().unwrap(),
        fixture = fixture("loop_sum.py").to_str().unwrap(),
        fixtures = fixture("").to_str().unwrap().trim_end_matches('/'),
    );
    let output = python(&["-c", &program]);
    assert!(
        output.status.success(),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    assert_eq!(
        String::from_utf8_lossy(&output.stdout),
        "[59, 58, ...<+58>] 6\nloop_sum True\n"
    );
}

fn scratch_directory(name: &str) -> PathBuf {
    let directory = Path::new(env!("CARGO_TARGET_TMPDIR")).join(format!("tracer-{name}"));
    std::fs::create_dir_all(&directory).unwrap();
    directory
}

/// A program that forks a child which never ends: the trace still comes
/// back, and the forked process is gone with the tracer (it would otherwise
/// keep a core busy and hold the protocol pipe open).
#[test]
fn forked_processes_do_not_outlive_the_trace() {
    // The parent returns the child's pid (the sandbox keeps the child from
    // writing it anywhere we could read).
    let source = "import os\n\ndef f():\n    pid = os.fork()\n    if pid == 0:\n        \
                  while True:\n            pass\n    return pid\n";
    let started = Instant::now();
    let trace = ndb_inference::tracer::trace_source(source, "f()", &TracerConfig::default())
        .expect("the parent's run is traced");
    assert!(
        started.elapsed() < Duration::from_secs(8),
        "{:?}",
        started.elapsed()
    );
    let child = trace.exit.value.clone().unwrap_or_default();
    assert!(
        child.parse::<u32>().is_ok_and(|pid| pid > 0),
        "the fork failed: {child}"
    );
    let mut alive = true;
    for _ in 0..50 {
        let status = std::fs::read_to_string(format!("/proc/{child}/stat")).unwrap_or_default();
        // Gone, or a zombie waiting for init to reap it.
        alive = !(status.is_empty() || status.contains(") Z "));
        if !alive {
            break;
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    assert!(!alive, "the forked process {child} outlived the trace");
}

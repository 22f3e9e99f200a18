//! The entry call's first state without running code
//! (`ndb_inference::entry::bind_entry_call`): it must equal the real
//! tracer's first event on the corpus and on edge cases, run nothing of the
//! file, and explain what it cannot bind.

use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Mutex;

use ndb_grammar::{EventKind, Trace};
use ndb_inference::entry::{bind_entry_call, EntryBinding};
use ndb_inference::tracer::{trace_source, TracerConfig, TracerError};

/// Work spread over threads: starting Python is most of the cost.
const THREADS: usize = 4;

fn repository() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("..")
}

/// The programs of `tests/programs/` with their entry calls, found the way
/// `tests/corpus.rs` finds them.
fn corpus() -> Vec<(PathBuf, String, Vec<String>)> {
    let mut programs = Vec::new();
    for folder in ["tests/programs/hand", "tests/programs/generated"] {
        let entries = std::fs::read_dir(repository().join(folder))
            .unwrap_or_else(|error| panic!("reading {folder}: {error}"));
        for entry in entries.flatten() {
            let path = entry.path();
            if path.extension().and_then(|e| e.to_str()) != Some("py") {
                continue;
            }
            let source = std::fs::read_to_string(&path).unwrap();
            let calls: Vec<String> = source
                .lines()
                .filter_map(|line| line.strip_prefix("# entry:"))
                .map(|call| call.trim().to_string())
                .collect();
            if !calls.is_empty() {
                programs.push((path, source, calls));
            }
        }
    }
    programs.sort();
    programs
}

fn parallel<T: Sync, R: Send>(items: &[T], work: impl Fn(&T) -> R + Sync) -> Vec<R> {
    let next = AtomicUsize::new(0);
    let results = Mutex::new(Vec::with_capacity(items.len()));
    std::thread::scope(|scope| {
        for _ in 0..THREADS {
            scope.spawn(|| loop {
                let index = next.fetch_add(1, Ordering::Relaxed);
                let Some(item) = items.get(index) else { break };
                let result = work(item);
                results.lock().unwrap().push((index, result));
            });
        }
    });
    let mut results = results.into_inner().unwrap();
    results.sort_by_key(|(index, _)| *index);
    results.into_iter().map(|(_, result)| result).collect()
}

/// (function, line, locals) of the tracer's first event.
fn first_event(trace: &Trace) -> (String, u32, Vec<(String, String)>) {
    let event = &trace.events[0];
    assert_eq!((event.kind, event.depth), (EventKind::Call, 0), "{event:?}");
    (event.function.clone(), event.line, event.locals.to_vec())
}

fn binding_view(binding: &EntryBinding) -> (String, u32, Vec<(String, String)>) {
    (
        binding.function.clone(),
        binding.line,
        binding.locals.to_vec(),
    )
}

/// One event is all the comparison needs.
fn first_event_config() -> TracerConfig {
    TracerConfig {
        max_events: 1,
        python: python(),
        ..TracerConfig::default()
    }
}

enum Outcome {
    Match,
    Mismatch(String),
    /// The binder refused (the reason is the message).
    NotBound(String),
}

fn compare(source: &str, call: &str, config: &TracerConfig) -> Outcome {
    let binding = match bind_entry_call(source, call, config) {
        Ok(binding) => binding,
        Err(error) => return Outcome::NotBound(error.to_string()),
    };
    let traced = match trace_source(source, call, config) {
        Ok(trace) => trace,
        Err(error) => return Outcome::Mismatch(format!("bound, but tracing failed: {error}")),
    };
    let want = first_event(&traced);
    let got = binding_view(&binding);
    if got == want {
        Outcome::Match
    } else {
        Outcome::Mismatch(format!("tracer {want:?}\n  bound  {got:?}"))
    }
}

/// Every hand-written program and the first two generated programs of each
/// template: each one's first entry call that binds is compared with the
/// tracer's first event. (Starting Python twice per program is the cost;
/// the ignored test below compares every entry call of every program.)
#[test]
fn bindings_equal_the_tracers_first_event_on_the_corpus() {
    let programs = corpus();
    assert!(programs.len() >= 300, "{} programs", programs.len());
    let mut per_template: std::collections::HashMap<String, usize> = Default::default();
    let selected: Vec<_> = programs
        .into_iter()
        .filter(|(_, source, _)| match template_of(source) {
            None => true,
            Some(template) => {
                let seen = per_template.entry(template).or_default();
                *seen += 1;
                *seen <= 2
            }
        })
        .collect();
    check_corpus(&selected, false);
}

/// Every entry call of every corpus program (about 600 calls, 1200 Python
/// processes): `cargo test -p ndb-inference --test entry -- --ignored`.
#[test]
#[ignore = "slow: run with --ignored"]
fn bindings_equal_the_tracers_first_event_on_every_entry_call() {
    check_corpus(&corpus(), true);
}

/// `count_filter` for a generated program's
/// `# generated by ...: template count_filter, program 0`.
fn template_of(source: &str) -> Option<String> {
    source
        .lines()
        .take_while(|line| line.starts_with('#'))
        .find_map(|line| line.split_once(": template "))
        .map(|(_, rest)| rest.split(',').next().unwrap_or(rest).trim().to_string())
}

/// Compare bindings with the tracer's first event on `programs`: their first
/// entry call that binds, or all of them (`every_call`). Requires every
/// compared call to match and at least 90% of the programs compared. The
/// only refusals allowed are principled: a function wrapped by a decorator
/// of the file (the wrapper, not the function, is the first frame) or an
/// argument that is not a literal.
fn check_corpus(programs: &[(PathBuf, String, Vec<String>)], every_call: bool) {
    let config = first_event_config();
    let outcomes = parallel(programs, |(_, source, calls)| {
        let mut results = Vec::new();
        for call in calls {
            let outcome = compare(source, call, &config);
            let bound = !matches!(outcome, Outcome::NotBound(_));
            results.push((call.clone(), outcome));
            if bound && !every_call {
                break;
            }
        }
        results
    });

    let (mut programs_compared, mut calls_compared) = (0, 0);
    let mut mismatches = Vec::new();
    let mut refusals = Vec::new();
    for ((path, _, _), results) in programs.iter().zip(&outcomes) {
        let name = path.file_name().unwrap().to_string_lossy().into_owned();
        let mut compared = false;
        for (call, outcome) in results {
            match outcome {
                Outcome::Match => {
                    compared = true;
                    calls_compared += 1;
                }
                Outcome::Mismatch(detail) => {
                    mismatches.push(format!("{name} `{call}`:\n  {detail}"))
                }
                Outcome::NotBound(message) => refusals.push(format!("{name}: {message}")),
            }
        }
        programs_compared += usize::from(compared);
    }
    eprintln!(
        "entry bindings: {programs_compared} of {} programs ({calls_compared} entry calls) \
         compared, all equal to the tracer's first event; {} entry calls refused",
        programs.len(),
        refusals.len()
    );
    for line in &refusals {
        eprintln!("  refused: {line}");
    }
    assert!(
        mismatches.is_empty(),
        "bindings differ from the tracer:\n{}",
        mismatches.join("\n")
    );
    assert!(
        programs_compared * 10 >= programs.len() * 9,
        "only {programs_compared} of {} programs compared",
        programs.len()
    );
    for line in &refusals {
        assert!(
            line.contains("is decorated with") || line.contains("is not a literal"),
            "unexpected refusal: {line}"
        );
    }
}

/// The interpreter `python3` runs, resolved once: a version manager's shim
/// (pyenv's is a shell script) would otherwise start with every process.
fn python() -> PathBuf {
    static PYTHON: std::sync::OnceLock<PathBuf> = std::sync::OnceLock::new();
    PYTHON
        .get_or_init(|| {
            let output = std::process::Command::new("python3")
                .args(["-c", "import sys; print(sys.executable)"])
                .output()
                .expect("python3 runs");
            let path = String::from_utf8_lossy(&output.stdout).trim().to_string();
            if output.status.success() && !path.is_empty() {
                PathBuf::from(path)
            } else {
                PathBuf::from("python3")
            }
        })
        .clone()
}

/// Cases the corpus does not cover, each compared with the real tracer.
#[test]
fn bindings_equal_the_tracers_first_event_on_edge_cases() {
    let source = r#"
import functools
from dataclasses import dataclass
from functools import lru_cache

LIMIT = 3
PAIR = (1, "a")
TABLE = {"k": [1, 2]}


def square(x):
    return x * x


class Base:
    pass


def kinds(a, /, b, *rest, c=LIMIT, d, **extra):
    return a


def defaults(x, y=-1.5, z=(1, {2: frozenset({3})}), w=None, f=square, k=Base):
    return x


def captured(zed, m, alpha):
    def inner():
        return zed + alpha + later
    later = 1
    return inner


@functools.lru_cache(maxsize=None)
def cached(n, scale=2):
    return n * scale


@functools.lru_cache(maxsize=None)
@lru_cache(maxsize=8)
def cached_twice(n):
    return n


def generator(limit):
    yield limit


async def coroutine(value, *, flag=False):
    return value


twice = lambda v, k=PAIR: (v, k)


class Shape(Base):
    sides = 4

    def area(self, scale=1):
        return super().area()

    def scaled(self, factor, offset=0):
        def inner():
            return factor + offset
        return super().__init__, inner

    @classmethod
    def make(cls, size):
        return cls()

    @staticmethod
    def unit(n=0):
        return n

    class Inner:
        def deep(self, *args):
            return args


@dataclass
class Point:
    x: int
    y: int

    def norm(self, p=2):
        return self.x


def collide(s, t=set(), u=float("-inf")):
    return s
"#;
    let calls = [
        "kinds(1, 2, 3, 4, d=5, e=6)",
        "kinds(1, b=2, d=[])",
        "kinds(*[1, 2], *(3,), **{'d': {'x': 1}}, c=0)",
        "defaults(0)",
        "defaults(x=1, y=2, z=3, w=4)",
        "defaults(square, k=lambda q: q)",
        "captured(1, m=[2], alpha=3)",
        "cached(5)",
        "cached(n=5, scale=3)",
        "cached_twice(1)",
        "twice(1)",
        "twice([], k=None)",
        "Shape.area(1)",
        "Shape.area('self', scale=2.5)",
        "Shape.scaled(None, 2)",
        "Shape.make(3)",
        "Shape.unit()",
        "Shape.Inner.deep(0, 1, 2)",
        "Point.norm(None)",
        "collide({8, 0, 16, 24, 1, 33, 7})",
        "collide({(8, 0), (1, 1)}, t={3, 11, 19})",
        "collide(set([32, 0, 64, 8]), frozenset([1, 9, 17]), float('nan'))",
        "collide(-0.0, 1+2j, -(3-4j))",
        "collide(TABLE, PAIR, LIMIT)",
        "collide(list('abc'), tuple([1]), dict(a=1, **{'b': 2}))",
        "collide('x' * 1 if False else 'y')",
        "collide(b'bytes\\x00', ..., True)",
        "collide(list(range(100)), 'q' * 3)",
    ];
    let config = first_event_config();
    let small = TracerConfig {
        max_repr_chars: 8,
        max_items: 3,
        ..config.clone()
    };
    let mut jobs: Vec<(&str, &TracerConfig)> = calls.iter().map(|c| (*c, &config)).collect();
    jobs.push((
        "collide(list('abcdefghijkl'), 'zzzzzzzzzzzzz', {1: [1, 2, 3, 4]})",
        &small,
    ));
    jobs.push((
        "collide(['a', 'long text here'], b'long bytes here', [[1, 2, 3, 4, 5]])",
        &small,
    ));
    let outcomes = parallel(&jobs, |(call, config)| {
        (call.to_string(), compare(source, call, config))
    });
    let mut problems = Vec::new();
    let mut refused = Vec::new();
    for (call, outcome) in &outcomes {
        match outcome {
            Outcome::Match => {}
            Outcome::Mismatch(detail) => problems.push(format!("`{call}`:\n  {detail}")),
            Outcome::NotBound(message) => refused.push(format!("`{call}`: {message}")),
        }
    }
    assert!(problems.is_empty(), "{}", problems.join("\n"));
    // The calls with a non-literal argument are refused; nothing else.
    let expected_refusals = [
        "collide('x' * 1 if False else 'y')",
        "collide(list(range(100)), 'q' * 3)",
    ];
    assert_eq!(refused.len(), expected_refusals.len(), "{refused:#?}");
    for (line, call) in refused.iter().zip(expected_refusals) {
        assert!(
            line.starts_with(&format!("`{call}`")) && line.contains("is not a literal"),
            "{line}"
        );
    }

    // Generators and coroutines bind (their state when the frame first
    // runs), although tracing such an entry call records no events.
    let generator = bind_entry_call(source, "generator(3)", &config).unwrap();
    assert_eq!(
        binding_view(&generator).2,
        vec![("limit".to_string(), "3".to_string())]
    );
    let coroutine = bind_entry_call(source, "coroutine([1], flag=True)", &config).unwrap();
    assert_eq!(
        (coroutine.function.as_str(), coroutine.locals.clone()),
        (
            "coroutine",
            vec![
                ("value".to_string(), "[1]".to_string()),
                ("flag".to_string(), "True".to_string())
            ]
        )
    );
    // Repr limits apply to bindings as to traces.
    let cut = bind_entry_call(source, "collide('abcdefghijkl', [1, 2, 3, 4])", &small).unwrap();
    assert_eq!(cut.locals[0].1, "'abcdefgh'...<+4 chars>");
    assert_eq!(cut.locals[1].1, "[1, 2, 3, ...<+1>]");
}

/// Module names in arguments and defaults resolve to what the file binds
/// them to, unless the top level could change them first; the body of
/// `if __name__ == "__main__":` never runs under the tracer.
#[test]
fn module_names_resolve_unless_the_top_level_may_change_them() {
    let quiet = r#"
DATA = [1, 2]
LIMIT = 10


def f(x, d=DATA, limit=LIMIT):
    return x


def main():
    DATA.append(3)


if __name__ == "__main__":
    main()
    f = None
"#;
    let config = first_event_config();
    for call in ["f(DATA)", "f(LIMIT, limit=-1)", "f((LIMIT, DATA))"] {
        match compare(quiet, call, &config) {
            Outcome::Match => {}
            Outcome::Mismatch(detail) => panic!("`{call}`: {detail}"),
            Outcome::NotBound(message) => panic!("`{call}` not bound: {message}"),
        }
    }
    let busy = r#"
DATA = [1, 2]
LIMIT = 10


def g(x, acc=[]):
    acc.append(x)
    return acc


def h(x, acc=(), limit=LIMIT):
    return acc


g(1)
"#;
    let message = entry_message(busy, "g(2)");
    assert!(
        message.contains("the default of parameter `acc` of `g` is mutable"),
        "{message}"
    );
    let message = entry_message(busy, "h(DATA)");
    assert!(message.contains("`DATA` is mutable"), "{message}");
    // Immutable values are safe whatever the top level does.
    match compare(busy, "h(LIMIT, (LIMIT,))", &config) {
        Outcome::Match => {}
        Outcome::Mismatch(detail) => panic!("{detail}"),
        Outcome::NotBound(message) => panic!("not bound: {message}"),
    }
}

fn marker_path() -> PathBuf {
    static COUNTER: AtomicUsize = AtomicUsize::new(0);
    std::env::temp_dir().join(format!(
        "ndb-entry-marker-{}-{}",
        std::process::id(),
        COUNTER.fetch_add(1, Ordering::Relaxed)
    ))
}

/// The file's top level writes a marker file, prints and raises; binding
/// succeeds, which it could not if the top level had run (it always
/// raises), and the marker is never written. Tracing the same file runs the
/// top level, whose write the sandbox refuses (the marker lies outside the
/// run's working directory).
#[test]
fn binding_runs_nothing_of_the_file() {
    let marker = marker_path();
    let _ = std::fs::remove_file(&marker);
    let source = format!(
        r#"import os
open({marker:?}, "w").write("ran")
print("top level ran")


def entry(items, limit=10):
    open({marker:?}, "w").write("entry ran")
    return items


class Loud:
    open({marker:?}, "w").write("class body ran")

    def method(self, n=open({marker:?}, "a") is None):
        return n


raise SystemExit("the top level always fails")
"#,
        marker = marker.display().to_string()
    );
    let config = TracerConfig::default();
    let binding = bind_entry_call(&source, "entry([1, 2], limit=3)", &config).unwrap();
    assert_eq!(
        binding,
        EntryBinding {
            function: "entry".to_string(),
            line: 6,
            locals: vec![
                ("items".to_string(), "[1, 2]".to_string()),
                ("limit".to_string(), "3".to_string())
            ],
        }
    );
    // A default that would run code is refused, not evaluated.
    let error = bind_entry_call(&source, "Loud.method(1)", &config).unwrap_err();
    assert!(error.to_string().contains("is not a literal"), "{error}");
    assert!(
        !marker.exists(),
        "binding ran the file: {} exists",
        marker.display()
    );

    let traced = trace_source(&source, "entry([1, 2])", &config);
    match &traced {
        Err(TracerError::Load(message)) => assert!(
            message.contains("PermissionError"),
            "the tracer should have run the top level, and the sandbox refused its write: {message}"
        ),
        other => panic!("{other:?}"),
    }
    assert!(!marker.exists(), "the sandbox let the top level write");
}

fn bind_error(source: &str, call: &str) -> TracerError {
    match bind_entry_call(source, call, &TracerConfig::default()) {
        Ok(binding) => panic!("binding `{call}` succeeded: {binding:?}"),
        Err(error) => error,
    }
}

fn entry_message(source: &str, call: &str) -> String {
    match bind_error(source, call) {
        TracerError::EntryCall(message) => message,
        other => panic!("binding `{call}`: not an entry call error: {other:?}"),
    }
}

#[test]
fn what_cannot_be_bound_is_explained() {
    let source = r#"
def g(x):
    return x


def f(a, b=2):
    return a


def tracing(fn):
    def wrapper(*args):
        return fn(*args)
    return wrapper


@tracing
def wrapped(n):
    return n


class Thing:
    def __init__(self, v):
        self.v = v


if True:
    def conditional(v):
        return v

LIMIT = 5
LIMIT = 6
"#;
    let message = entry_message(source, "f(g(3))");
    assert_eq!(
        message,
        "entry call `f(g(3))`: argument 1 `g(3)` is not a literal; predictions without \
         running code need literal arguments"
    );
    let message = entry_message(source, "f([1, other], b=len('ab'))");
    assert!(
        message.contains("argument 1 `[1, other]` is not a literal"),
        "{message}"
    );
    let message = entry_message(source, "f(1, b=len('ab'))");
    assert!(
        message.contains("argument `b=` `len('ab')` is not a literal"),
        "{message}"
    );
    let message = entry_message(source, "f(LIMIT)");
    assert!(
        message.contains("binds `LIMIT` more than once"),
        "{message}"
    );
    assert_eq!(
        entry_message(source, "h(1)"),
        "entry call `h(1)`: no function `h` in the file"
    );
    let message = entry_message(source, "Thing.missing(1)");
    assert!(
        message.contains("no function `missing` in class `Thing`"),
        "{message}"
    );
    let message = entry_message(source, "wrapped(1)");
    assert!(message.contains("decorated with `tracing`"), "{message}");
    let message = entry_message(source, "Thing(1)");
    assert!(message.contains("`Thing` is a class"), "{message}");
    let message = entry_message(source, "conditional(1)");
    assert!(message.contains("defined conditionally"), "{message}");
    let message = entry_message(source, "f()");
    assert!(
        message.contains("does not fit `f(a, b=2)`")
            && message.contains("missing a required argument: 'a'"),
        "{message}"
    );
    let message = entry_message(source, "f(1, 2, 3)");
    assert!(
        message.contains("too many positional arguments"),
        "{message}"
    );
    let message = entry_message(source, "f(1, c=3)");
    assert!(
        message.contains("unexpected keyword argument 'c'"),
        "{message}"
    );
    let message = entry_message(source, "f(1, float('x'))");
    assert!(message.contains("raised ValueError"), "{message}");
    let message = entry_message(source, "f");
    assert!(message.contains("is not a call expression"), "{message}");
    let message = entry_message(source, "f(");
    assert!(message.contains("does not parse"), "{message}");

    match bind_error("def f(x):\n    return x\n\ndef g(:\n    pass\n", "f(1)") {
        TracerError::Syntax(message) => assert!(
            message.contains("syntax error in <source> line 4"),
            "{message}"
        ),
        other => panic!("not a syntax error: {other:?}"),
    }
    // Errors only the compiler finds are reported as the tracer reports them.
    match bind_error("def f(x):\n    return x\n\nreturn 1\n", "f(1)") {
        TracerError::Syntax(message) => assert!(message.contains("line 4"), "{message}"),
        other => panic!("not a syntax error: {other:?}"),
    }

    let config = TracerConfig {
        python: PathBuf::from("/nonexistent/python3"),
        ..TracerConfig::default()
    };
    let error = bind_entry_call(source, "f(1)", &config).unwrap_err();
    assert!(
        matches!(error, TracerError::PythonNotFound { .. }),
        "{error:?}"
    );
}

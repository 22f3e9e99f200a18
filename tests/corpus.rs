//! Whole-corpus checks of the debugger's world. Every program of
//! `tests/programs/` is recorded once with the real tracer; then
//! - the state tree agrees with real pdb: for each entry call a set of action
//!   lists (systematic ones plus ones sampled with the training policy) is
//!   answered twice, by the state tree and by the standard library's pdb
//!   driven with the matching commands (`tests/pdb/pdb_driver.py`), and every
//!   stop is compared (event, line, depth, locals, value, exit status);
//! - the inverse tree has its properties (see each test);
//! - the text language round-trips every sampled trajectory.

use std::collections::BTreeMap;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::{Mutex, OnceLock};

use ndb_grammar::{
    sampler, text, Action, Cursor, EventKind, SamplerConfig, SplitMix64, StateTree, Walk,
};
use ndb_inference::json::state_to_json;
use ndb_inference::tracer::{trace_file, TracerConfig};
use serde_json::{json, Value};

const DRIVER_TIME_LIMIT_SECONDS: f64 = 1.0;

fn repository() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// Every program of the corpus with its entry calls (`# entry: CALL`).
fn corpus() -> Vec<(PathBuf, Vec<String>)> {
    let mut programs = Vec::new();
    for folder in ["tests/programs/hand", "tests/programs/generated"] {
        let Ok(entries) = std::fs::read_dir(repository().join(folder)) else {
            continue;
        };
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
                programs.push((path, calls));
            }
        }
    }
    programs.sort();
    programs
}

/// One recorded entry call of the corpus.
struct Recorded {
    file: PathBuf,
    call: String,
    seed: u64,
    tree: StateTree,
}

/// Every entry call of the corpus, recorded once (on two threads) and shared
/// by the tests of this file.
fn recorded() -> &'static [Recorded] {
    static RECORDED: OnceLock<Vec<Recorded>> = OnceLock::new();
    RECORDED.get_or_init(|| {
        let programs = corpus();
        assert!(
            programs.len() >= 300,
            "the corpus has at least 300 programs, found {}",
            programs.len()
        );
        let jobs: Vec<(PathBuf, String, u64)> = programs
            .iter()
            .enumerate()
            .flat_map(|(index, (path, calls))| {
                calls
                    .iter()
                    .enumerate()
                    .map(move |(n, call)| (path.clone(), call.clone(), (index * 10 + n) as u64))
            })
            .collect();
        let mut recorded = parallel(&jobs, |(file, call, seed)| {
            let trace = trace_file(file, call, &TracerConfig::default())
                .unwrap_or_else(|error| panic!("tracing {} `{call}`: {error}", file.display()));
            Recorded {
                file: file.clone(),
                call: call.clone(),
                seed: *seed,
                tree: StateTree::new(trace),
            }
        });
        recorded.sort_by_key(|r| r.seed);
        recorded
    })
}

/// Maps `work` over `items` on two threads.
fn parallel<T: Sync, R: Send>(items: &[T], work: impl Fn(&T) -> R + Sync) -> Vec<R> {
    let next = Mutex::new(0usize);
    let results = Mutex::new(Vec::with_capacity(items.len()));
    std::thread::scope(|scope| {
        for _ in 0..2 {
            scope.spawn(|| loop {
                let index = {
                    let mut next = next.lock().unwrap();
                    *next += 1;
                    *next - 1
                };
                let Some(item) = items.get(index) else { break };
                let result = work(item);
                results.lock().unwrap().push(result);
            });
        }
    });
    results.into_inner().unwrap()
}

/// The action lists asked of one entry call.
fn runs_for(tree: &StateTree, seed: u64) -> Vec<Vec<Action>> {
    let events = tree.events();
    let mut runs = vec![
        vec![Action::StepInto; events.len().min(300)],
        vec![Action::StepOver; 60],
        vec![Action::StepReturn; 8],
        vec![Action::Continue],
        vec![
            Action::StepInto,
            Action::StepInto,
            Action::StepReturn,
            Action::StepOver,
            Action::StepOver,
        ],
    ];
    // Breakpoints at a few lines that run, and one that never does.
    let mut lines: Vec<u32> = events
        .iter()
        .filter(|event| event.kind == EventKind::Line)
        .map(|event| event.line)
        .collect();
    lines.sort_unstable();
    lines.dedup();
    for &line in lines.iter().step_by((lines.len() / 3).max(1)).take(4) {
        runs.push(vec![
            Action::Breakpoint(line),
            Action::Breakpoint(line),
            Action::StepOver,
        ]);
    }
    runs.push(vec![Action::Breakpoint(1)]);
    let mut rng = SplitMix64::new(seed);
    for _ in 0..6 {
        let walk = sampler::sample_forward_from(
            tree,
            tree.start(),
            &mut rng,
            SamplerConfig { max_steps: 20 },
        );
        runs.push(walk.actions());
    }
    runs.retain(|run| !run.is_empty());
    runs
}

fn run_driver(file: &Path, call: &str, runs: &[Vec<Action>]) -> Vec<Value> {
    let input = json!({
        "file": file,
        "entry_call": call,
        "runs": runs.iter().map(|run| run.iter().map(|a| a.to_word()).collect::<Vec<_>>()).collect::<Vec<_>>(),
        "time_limit": DRIVER_TIME_LIMIT_SECONDS,
        "max_repr": 200,
        "max_items": 50,
    });
    let mut child = Command::new("python3")
        .arg(repository().join("tests/pdb/pdb_driver.py"))
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("python3 runs the pdb driver");
    child
        .stdin
        .take()
        .unwrap()
        .write_all(input.to_string().as_bytes())
        .unwrap();
    let output = child.wait_with_output().unwrap();
    let stdout = String::from_utf8_lossy(&output.stdout);
    let results: Vec<Value> = stdout
        .lines()
        .filter(|line| !line.trim().is_empty())
        .map(|line| serde_json::from_str(line).expect("the driver prints JSON lines"))
        .collect();
    assert_eq!(
        results.len(),
        runs.len(),
        "the pdb driver answered every run of {} `{call}`; stderr: {}",
        file.display(),
        String::from_utf8_lossy(&output.stderr)
    );
    results
}

#[derive(Default)]
struct Tally {
    compared: usize,
    agreed: usize,
    /// Mismatches by action name.
    by_action: BTreeMap<&'static str, (usize, usize)>,
    /// Differing stops by program.
    by_program: BTreeMap<String, usize>,
    examples: Vec<String>,
}

fn compare_program(recorded: &Recorded, tally: &Mutex<Tally>) {
    let Recorded {
        file,
        call,
        seed,
        tree,
    } = recorded;
    let runs = runs_for(tree, *seed);
    let results = run_driver(file, call, &runs);
    let mut local = Tally::default();
    for (run, result) in runs.iter().zip(&results) {
        assert!(
            result["error"].is_null(),
            "the pdb driver failed on {} `{call}`: {}",
            file.display(),
            result["error"]
        );
        let stops = result["stops"].as_array().expect("stops");
        let walk = Walk::new(tree, tree.start(), run);
        let mut expected = vec![state_to_json(tree.view(walk.start).as_ref())];
        expected.extend(
            walk.steps
                .iter()
                .map(|&(_, c)| state_to_json(tree.view(c).as_ref())),
        );
        let mut cursors = vec![walk.start];
        cursors.extend(walk.steps.iter().map(|&(_, c)| c));
        for (position, want) in expected.iter().enumerate() {
            let action = if position == 0 {
                "start"
            } else {
                run[position - 1].name()
            };
            let got = match stops.get(position) {
                Some(got) => got,
                // pdb ended the run; the tree must have ended it too.
                None if position > 0 && cursors[position - 1] == Cursor::Exit => break,
                None => &Value::Null,
            };
            let entry = local.by_action.entry(action).or_default();
            entry.0 += 1;
            local.compared += 1;
            if got == want {
                local.agreed += 1;
            } else {
                entry.1 += 1;
                let name = file.strip_prefix(repository()).unwrap_or(file);
                *local
                    .by_program
                    .entry(name.display().to_string())
                    .or_default() += 1;
                if local.examples.len() < 3 && entry.1 <= 2 {
                    local.examples.push(format!(
                        "{} `{call}` actions {:?} at {position} ({action}):\n  tree: {want}\n  pdb:  {got}",
                        name.display(),
                        run.iter().map(|a| a.to_word()).collect::<Vec<_>>(),
                    ));
                }
            }
        }
    }
    let mut tally = tally.lock().unwrap();
    tally.compared += local.compared;
    tally.agreed += local.agreed;
    for (action, (count, bad)) in local.by_action {
        let entry = tally.by_action.entry(action).or_default();
        entry.0 += count;
        entry.1 += bad;
    }
    tally.examples.extend(local.examples);
    for (program, count) in local.by_program {
        *tally.by_program.entry(program).or_default() += count;
    }
}

#[test]
fn the_state_tree_agrees_with_real_pdb() {
    let recorded = recorded();
    let tally = Mutex::new(Tally::default());
    parallel(recorded, |one| compare_program(one, &tally));
    let tally = tally.into_inner().unwrap();
    let share = tally.agreed as f64 / tally.compared.max(1) as f64;
    eprintln!(
        "pdb agreement: {} of {} stops agree ({:.2}%) over {} entry calls",
        tally.agreed,
        tally.compared,
        share * 100.0,
        recorded.len()
    );
    for (action, (count, bad)) in &tally.by_action {
        eprintln!("  {action:<12} {count:>7} stops, {bad:>5} differ");
    }
    for (program, count) in &tally.by_program {
        eprintln!("  {count:>5} differ in {program}");
    }
    for example in tally.examples.iter().take(60) {
        eprintln!("{example}");
    }
    assert!(
        share >= 0.99,
        "at least 99% of stops agree with pdb; got {:.2}%",
        share * 100.0
    );
}

/// Every position of a tree: each event, each line event as a line-call,
/// and the exit.
fn positions(tree: &StateTree) -> Vec<Cursor> {
    let mut all = vec![Cursor::Exit];
    for (index, event) in tree.events().iter().enumerate() {
        all.push(Cursor::Event(index));
        if event.kind == EventKind::Line {
            all.push(Cursor::LineCall(index));
        }
    }
    all
}

#[test]
fn inv_step_call_lands_on_the_call_of_the_current_function() {
    for Recorded { file, tree, .. } in recorded() {
        let events = tree.events();
        for cursor in positions(tree) {
            let Some(index) = cursor.event_index() else {
                continue;
            };
            let landed = tree.apply(cursor, Action::InvStepCall);
            let Cursor::Event(call) = landed else {
                panic!(
                    "{}: inv_step_call from {cursor:?} left the events: {landed:?}",
                    file.display()
                )
            };
            assert_eq!(events[call].kind, EventKind::Call, "{}", file.display());
            assert_eq!(
                events[call].frame,
                events[index].frame,
                "{}",
                file.display()
            );
            assert!(call <= index);
            // It is the latest call (resumption) of that frame.
            assert!(
                events[call + 1..=index]
                    .iter()
                    .all(|e| !(e.frame == events[index].frame && e.kind == EventKind::Call)),
                "{}: inv_step_call from {index} skipped a later call of the frame",
                file.display()
            );
        }
    }
}

#[test]
fn inv_step_over_then_step_over_comes_back() {
    let mut checked = 0;
    for Recorded { file, tree, .. } in recorded() {
        for (index, event) in tree.events().iter().enumerate() {
            // Where both are defined: inv_step_over stays on the level (it
            // does not go up to the caller), in an ordinary frame (pdb's
            // `next` follows a generator's frame across resumptions).
            let Some(previous) = tree.previous_in_level(index) else {
                continue;
            };
            if event.generator {
                continue;
            }
            let back = tree.apply(Cursor::Event(index), Action::InvStepOver);
            assert_eq!(back, Cursor::Event(previous));
            let again = tree.apply(back, Action::StepOver);
            assert_eq!(
                again,
                Cursor::Event(index),
                "{}: step_over(inv_step_over(event {index})) came to {again:?}",
                file.display()
            );
            checked += 1;
        }
    }
    assert!(checked > 10_000, "checked {checked} states");
}

#[test]
fn the_inverse_tree_holds_the_same_states_as_the_forward_tree() {
    for Recorded { file, tree, .. } in recorded() {
        // Going back from the exit with inv_step_into visits every event
        // exactly once, newest first, then the entry exit.
        let count = tree.events().len();
        let mut cursor = Cursor::Exit;
        let mut visited = Vec::with_capacity(count);
        while cursor != Cursor::ExitEntry {
            let next = tree.apply(cursor, Action::InvStepInto);
            // And step_into undoes it, except where pdb's `step` skips an
            // event (CPython's internal StopIteration of `yield from`).
            if let (Some(_), Some(index)) = (next.event_index(), cursor.event_index()) {
                let event = &tree.events()[index];
                let skipped_by_pdb = event.kind == EventKind::Exception
                    && event.generator
                    && event.exception_type.as_deref() == Some("StopIteration")
                    && event.traceback_is_none;
                if !skipped_by_pdb {
                    assert_eq!(
                        tree.apply(next, Action::StepInto),
                        Cursor::Event(index),
                        "{}: step_into(inv_step_into({cursor:?}))",
                        file.display()
                    );
                }
            }
            cursor = next;
            match cursor {
                Cursor::Event(index) | Cursor::LineCall(index) => visited.push(index),
                Cursor::ExitEntry => {}
                Cursor::Exit => panic!("{}: went back to the exit", file.display()),
            }
            assert!(
                visited.len() <= count,
                "{}: inv_step_into loops",
                file.display()
            );
        }
        let expected: Vec<usize> = (0..count).rev().collect();
        assert_eq!(visited, expected, "{}", file.display());
    }
}

#[test]
fn the_text_language_round_trips_every_trajectory() {
    let mut trajectories = 0;
    for Recorded {
        file, seed, tree, ..
    } in recorded()
    {
        let mut rng = SplitMix64::new(*seed);
        let mut walks: Vec<(Walk, bool)> = Vec::new();
        let steps = tree.events().len().min(400);
        walks.push((
            Walk::new(tree, tree.start(), &vec![Action::StepInto; steps]),
            false,
        ));
        for _ in 0..4 {
            if let Some(walk) = sampler::sample_forward(tree, &mut rng, SamplerConfig::default()) {
                walks.push((walk, false));
            }
            walks.push((
                sampler::sample_inverse(tree, &mut rng, SamplerConfig::default()),
                true,
            ));
        }
        for (walk, inverse) in walks {
            let mut trajectory = walk.to_text(tree, inverse);
            let printed = text::print_trajectory(&trajectory);
            let pieces = text::print_trajectory_pieces(&trajectory);
            let joined: String = pieces.iter().map(|piece| piece.text.as_str()).collect();
            assert_eq!(joined, printed, "{}: pieces", file.display());
            let states: Vec<usize> = pieces.iter().filter_map(|piece| piece.step).collect();
            assert_eq!(states, (0..trajectory.steps.len()).collect::<Vec<_>>());
            for piece in pieces.iter().filter(|piece| piece.step.is_some()) {
                assert!(piece.text.starts_with("<|") && !piece.text.contains("<|frame_sep|>"));
            }
            let (parsed, errors) = text::parse_trajectory(&printed);
            assert!(
                errors.is_empty(),
                "{}: parse errors {errors:?} in\n{printed}",
                file.display()
            );
            normalize(&mut trajectory);
            assert_eq!(
                parsed,
                trajectory,
                "{}: round trip of\n{printed}",
                file.display()
            );
            trajectories += 1;
        }
    }
    eprintln!("round-tripped {trajectories} trajectories");
}

/// What the parser gives back of a printed trajectory: states' source lines
/// exactly as written (the file's lines), breakpoint texts trimmed.
fn normalize(trajectory: &mut ndb_grammar::TextTrajectory) {
    for step in &mut trajectory.steps {
        if let ndb_grammar::TextAction::Breakpoint { src, .. } = &mut step.action {
            *src = text::normalize_src(src);
        }
    }
}

/// The one deliberate difference (docs/actions.md): an abandoned generator is
/// finalised (GeneratorExit thrown into it) when CPython drops its last
/// reference. The tree records the program undisturbed; pdb's own references
/// to the frames it stopped in keep the generator alive longer, so pdb sees
/// the finalisation later or not at all. Apart from the finalisation's
/// events, both see the same stops.
#[test]
fn abandoned_generators_are_finalised_where_cpython_does_it() {
    let file = repository().join("tests/fixtures/abandoned_generator.py");
    let trace = trace_file(&file, "combined()", &TracerConfig::default()).unwrap();
    let tree = StateTree::new(trace);
    let events = tree.events();
    let finalising = |index: usize| {
        let start = tree.level_start(index);
        let end = tree.level_end(start).unwrap_or(events.len() - 1);
        events[start..=end].iter().any(|event| {
            event.frame == events[start].frame
                && event.exception_type.as_deref() == Some("GeneratorExit")
        })
    };
    assert!(
        (0..events.len()).any(finalising),
        "the tracer records the generator's finalisation"
    );
    let run = vec![Action::StepInto; events.len()];
    let walk = Walk::new(&tree, tree.start(), &run);
    let tree_stops: Vec<Value> = std::iter::once(walk.start)
        .chain(walk.steps.iter().map(|&(_, cursor)| cursor))
        .take_while(|&cursor| cursor != Cursor::Exit)
        .filter(|cursor| !cursor.event_index().is_some_and(finalising))
        .map(|cursor| state_to_json(tree.view(cursor).as_ref()))
        .collect();
    let result = &run_driver(&file, "combined()", &[run])[0];
    let pdb_stops: Vec<Value> = result["stops"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|stop| stop["event"] != "exit")
        .cloned()
        .collect();
    assert_eq!(tree_stops, pdb_stops);
}

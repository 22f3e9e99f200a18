//! The editor features on Python fixtures (`tests/fixtures/*.py`: `$0` marks
//! the hover cursor, `# <- breakpoint` a neural breakpoint), answered by a
//! stand-in model (the real tracer, 3 of 4 samples agreeing), written out
//! as annotated source and compared with snapshots.

mod support;

use ndb_inference::debugger::Source;
use std::collections::HashSet;
use std::fmt::Write as _;
use std::sync::Arc;

use ndb_grammar::{Action, EventKind, StateView, TextEvent, TextState};
use ndb_inference::debugger::{Cancel, Confidence, DebugError, Debugger, Session, State};

use ndb_lsp::document::DocumentSnapshot;
use ndb_lsp::entry_calls::{ExternalCalls, UserEntryCalls};
use ndb_lsp::ide::{self, View};
use ndb_lsp::settings::Settings;
use support::{ComputedAnswers, Fixture};

fn render(name: &str, settings: &Settings) -> String {
    let fixture = Fixture::load(name);
    let answers = ComputedAnswers::new(&fixture.text);
    render_with(fixture, settings, answers)
}

fn render_with(fixture: Fixture, settings: &Settings, answers: ComputedAnswers) -> String {
    let document = DocumentSnapshot::parse(&fixture.text);
    let user = UserEntryCalls::default();
    let external = ExternalCalls::default();
    let predicted = HashSet::new();
    let view = View {
        uri: "file:///fixture.py",
        document: &document,
        breakpoints: &fixture.breakpoints,
        user: &user,
        external: &external,
        settings,
        predicted_functions: &predicted,
    };
    let all_lines = 0..document.line_index.line_count();
    let first = ide::inlay_hints(&view, all_lines.clone(), &answers);
    let mut out = String::new();
    let _ = writeln!(out, "== asked {} question(s) for hints", first.needed.len());
    answers.answer(&first.needed);
    let hints = ide::inlay_hints(&view, all_lines, &answers);
    assert!(
        hints.needed.is_empty(),
        "answered questions are not asked again"
    );
    out.push_str("== hints\n");
    for (number, line) in fixture.text.lines().enumerate() {
        let mut shown = line.to_string();
        for hint in hints.hints.iter().filter(|hint| hint.line == number) {
            let _ = write!(shown, "  «{}»", hint.label);
        }
        let _ = writeln!(out, "{:>3} | {shown}", number + 1);
    }
    for hint in &hints.hints {
        let _ = writeln!(out, "== tooltip of the hint on line {}", hint.line + 1);
        out.push_str(&ide::hint_tooltip(&view, &hint.key, &answers).unwrap_or_default());
        out.push('\n');
    }
    if let Some(cursor) = fixture.cursor {
        let first = ide::hover(&view, cursor, &answers);
        answers.answer(&first.needed);
        let hover = ide::hover(&view, cursor, &answers);
        let _ = writeln!(out, "== hover at the cursor");
        match hover.hover {
            Some(hover) => {
                let _ = writeln!(
                    out,
                    "range {:?} = {:?}",
                    hover.range,
                    &fixture.text[hover.range.clone()]
                );
                out.push_str(&hover.markdown);
                out.push('\n');
            }
            None => out.push_str("(none)\n"),
        }
    }
    let analysis = document.analysis();
    out.push_str("== functions and entry calls\n");
    for (index, function) in analysis.functions.iter().enumerate() {
        let calls: Vec<String> = view
            .entry_calls(index)
            .iter()
            .map(|call| format!("{} [{}]", call.call, call.origin.describe()))
            .collect();
        let _ = writeln!(
            out,
            "{} ({:?}, def line {}, returns at {:?}): {}",
            function.qualified_name,
            function.kind,
            function.def_line + 1,
            function
                .return_lines
                .iter()
                .map(|line| line + 1)
                .collect::<Vec<_>>(),
            if calls.is_empty() {
                "none".to_string()
            } else {
                calls.join(", ")
            }
        );
    }
    out.push_str("== lenses\n");
    for lens in ide::code_lenses(&view) {
        let command = ide::resolve_lens(&view, &lens, &answers).expect("function exists");
        let _ = writeln!(
            out,
            "line {}: {} -> {} {}",
            lens.line + 1,
            command.title,
            command.command.name(),
            command.command.argument()
        );
    }
    if let Some(&line) = fixture.breakpoints.iter().next() {
        let _ = writeln!(out, "== code actions on line {}", line + 1);
        for action in ide::code_actions(&view, line, None, &answers) {
            let _ = writeln!(
                out,
                "{} -> {} {}",
                action.title,
                action.command.name(),
                action.command.argument()
            );
        }
    }
    out
}

fn check(name: &str) {
    let rendered = render(&format!("{name}.py"), &Settings::default());
    insta::assert_snapshot!(name, rendered);
}

#[test]
fn accumulate() {
    check("accumulate");
}

#[test]
fn unicode_identifiers_and_emoji() {
    check("unicode");
}

#[test]
fn entry_call_sources() {
    check("entry_calls");
}

#[test]
fn half_typed_code_asks_nothing_and_keeps_serving() {
    check("half_typed");
}

#[test]
fn raises_and_returns() {
    check("raises");
}

#[test]
fn settings_turn_hints_off_by_kind() {
    let mut settings = Settings::default();
    settings.inlay_hints.breakpoints = false;
    let rendered = render("accumulate.py", &settings);
    assert!(!rendered.contains("«≈ value"), "{rendered}");
    assert!(rendered.contains("«≈ returns"), "{rendered}");
    settings.inlay_hints.return_values = false;
    let rendered = render("accumulate.py", &settings);
    assert!(!rendered.contains('«'), "{rendered}");
}

#[test]
fn a_long_file_is_analysed_quickly() {
    let mut text = String::new();
    for index in 0..2_500 {
        let _ = write!(
            text,
            "def f{index}(x):\n    y = x + {index}\n    return y\n\n"
        );
    }
    assert!(text.lines().count() >= 10_000);
    let started = std::time::Instant::now();
    let document = DocumentSnapshot::parse(&text);
    let analysis = document.analysis();
    assert_eq!(analysis.functions.len(), 2_500);
    let elapsed = started.elapsed();
    assert!(
        elapsed.as_secs_f64() < 5.0,
        "parse and analysis took {elapsed:?}"
    );
}

/// A model that binds nothing and predicts every step as `return 42`: it
/// shows which answers the `auto` engine took from the model.
struct Predicts42;

impl Debugger for Predicts42 {
    fn name(&self) -> String {
        "predicts-42".into()
    }
    fn start(&self, _: &Source, _: &str, _: &Cancel) -> Result<State, DebugError> {
        Ok(state(TextEvent::Call, None, None))
    }
    fn next(&self, _: &Session, _: Action, _: &Cancel) -> Result<State, DebugError> {
        let confidence = Confidence {
            votes: 1,
            samples: 1,
            probability: Some(0.9),
        };
        Ok(state(TextEvent::Return, Some("42"), Some(confidence)))
    }
}

fn state(event: TextEvent, value: Option<&str>, confidence: Option<Confidence>) -> State {
    State {
        text: TextState {
            event,
            inverse: false,
            src: String::new(),
            locals: Default::default(),
            value: value.map(str::to_string),
        },
        view: value.map(|value| StateView::Event {
            kind: EventKind::Return,
            line: 9,
            depth: 0,
            locals: None,
            value: Some(value.to_string()),
        }),
        confidence,
        note: None,
    }
}

fn auto_settings() -> Settings {
    let (settings, problems) =
        Settings::from_json(&serde_json::json!({"engine": "auto", "allowRunningCode": true}));
    assert!(problems.is_empty(), "{problems:?}");
    settings
}

#[test]
fn the_auto_engine_shows_real_values_where_the_code_runs() {
    let fixture = Fixture::load("accumulate.py");
    let mut answers = ComputedAnswers::new(&fixture.text);
    answers.model = Arc::new(Predicts42);
    let rendered = render_with(fixture, &auto_settings(), answers);
    assert!(
        rendered.contains("«(ran) returns [3, 7, 12]»"),
        "{rendered}"
    );
    assert!(!rendered.contains('≈'), "{rendered}");
}

#[test]
fn the_auto_engine_predicts_where_the_code_cannot_run_and_says_why() {
    let fixture = Fixture::parse(
        "import ndb_no_such_module\n\n\ndef double(x):\n    \"\"\"\n    >>> double(4)\n    8\n    \"\"\"\n    return x * 2  # <- breakpoint\n",
    );
    let mut answers = ComputedAnswers::new(&fixture.text);
    answers.model = Arc::new(Predicts42);
    let rendered = render_with(fixture, &auto_settings(), answers);
    assert!(rendered.contains("«≈ returns 42»"), "{rendered}");
    assert!(
        rendered.contains("predicted, not run") && rendered.contains("ndb_no_such_module"),
        "the tooltip says why it was predicted: {rendered}"
    );
    assert!(
        rendered.contains("Predicted by the neural debugger"),
        "{rendered}"
    );
}

#[test]
fn the_auto_engine_without_consent_is_the_model() {
    let (settings, _) = Settings::from_json(&serde_json::json!({"engine": "auto"}));
    let fixture = Fixture::load("accumulate.py");
    let mut answers = ComputedAnswers::new(&fixture.text);
    answers.model = Arc::new(Predicts42);
    let rendered = render_with(fixture, &settings, answers);
    assert!(rendered.contains("«≈ returns 42»"), "{rendered}");
    assert!(
        !rendered.contains("(ran)"),
        "nothing runs without allowRunningCode: {rendered}"
    );
}

//! The text language as data: snapshots of printed trajectories and of the
//! Lark grammar, round trips and never-panic properties of the parser, and
//! (when llguidance is installed) a check that the grammars accept what the
//! printer writes.

use ndb_grammar::lark::{
    answer_grammar, arguments_grammar, literal_grammar, state_grammar, trajectory_grammar,
};
use ndb_grammar::locate::FunctionSpan;
use ndb_grammar::text::{
    breakpoint_action, delta_possible, normalize_trajectory, parse_state, parse_trajectory,
    print_state, print_trajectory, prompt_prefix, resolve_breakpoint, SPECIAL_TOKENS,
};
use ndb_grammar::{Locals, TextAction, TextEvent, TextState, TextStep, TextTrajectory};
use proptest::prelude::*;
use proptest::strategy::ValueTree;
use proptest::test_runner::{Config, RngAlgorithm, TestRng, TestRunner};

// ---------------------------------------------------------------------------
// Fixtures.

const SUM_SOURCE: &str = "\
def f(xs):
    total = 0
    for x in xs:
        total += x
        total += x
    return total
";

/// SUM_SOURCE's one function, as the Python reader finds it.
fn sum_function() -> FunctionSpan {
    FunctionSpan::one_line_header("f", 1, 1, 6, 0)
}

const UPPER_SOURCE: &str = "\
def g(s):
    t = s.upper()
    return t + \"!\"
";

fn locals(pairs: &[(&str, &str)]) -> Locals {
    pairs
        .iter()
        .map(|(name, value)| (name.to_string(), value.to_string()))
        .collect()
}

fn with_locals(event: TextEvent, inverse: bool, src: &str, pairs: &[(&str, &str)]) -> TextState {
    TextState {
        event,
        inverse,
        src: src.to_string(),
        locals: locals(pairs),
        value: None,
    }
}

fn with_value(event: TextEvent, inverse: bool, src: &str, value: &str) -> TextState {
    TextState {
        event,
        inverse,
        src: src.to_string(),
        locals: Locals::new(),
        value: Some(value.to_string()),
    }
}

fn exit(event: TextEvent, inverse: bool) -> TextState {
    TextState {
        event,
        inverse,
        src: String::new(),
        locals: Locals::new(),
        value: None,
    }
}

fn step(action: TextAction, state: TextState, delta: bool) -> TextStep {
    TextStep {
        action,
        state,
        delta,
    }
}

/// `f([1, 2])` stepped forward: deltas on single steps, full locals after
/// the breakpoint jump (the second of two identical lines).
fn forward_trajectory() -> TextTrajectory {
    use TextEvent::*;
    let xs = ("xs", "[1, 2]");
    TextTrajectory {
        source: SUM_SOURCE.trim_end().to_string(),
        start: with_locals(Call, false, "def f(xs):", &[xs]),
        steps: vec![
            step(
                TextAction::StepInto,
                with_locals(Line, false, "    total = 0", &[xs]),
                true,
            ),
            step(
                TextAction::StepOver,
                with_locals(Line, false, "    for x in xs:", &[xs, ("total", "0")]),
                true,
            ),
            step(
                TextAction::StepOver,
                with_locals(
                    Line,
                    false,
                    "        total += x",
                    &[xs, ("total", "0"), ("x", "1")],
                ),
                true,
            ),
            step(
                breakpoint_action(&ndb_grammar::Source::new(SUM_SOURCE, Vec::new()), 5),
                with_locals(
                    Line,
                    false,
                    "        total += x",
                    &[xs, ("total", "1"), ("x", "1")],
                ),
                false,
            ),
            step(
                TextAction::StepReturn,
                with_value(Return, false, "    return total", "6"),
                false,
            ),
            step(TextAction::Continue, exit(ExitNormal, false), false),
        ],
        ended: true,
    }
}

/// `g('ab"\n é')` walked backwards from its return to its arguments.
fn inverse_trajectory() -> TextTrajectory {
    use TextEvent::*;
    let s = ("s", r#"'ab"\n é'"#);
    TextTrajectory {
        source: UPPER_SOURCE.trim_end().to_string(),
        start: with_value(Return, true, "    return t + \"!\"", r#"'AB"\n É!'"#),
        steps: vec![
            step(
                TextAction::InvStepOver,
                with_locals(
                    Line,
                    true,
                    "    return t + \"!\"",
                    &[s, ("t", r#"'AB"\n É'"#)],
                ),
                false,
            ),
            step(
                TextAction::InvStepOver,
                with_locals(Line, true, "    t = s.upper()", &[s]),
                true,
            ),
            step(
                TextAction::InvStepCall,
                with_locals(Call, true, "def g(s):", &[s]),
                false,
            ),
            step(TextAction::InvStepInto, exit(ExitEntry, true), false),
        ],
        ended: true,
    }
}

// ---------------------------------------------------------------------------
// Snapshots.

#[test]
fn forward_trajectory_snapshot() {
    let t = forward_trajectory();
    let printed = print_trajectory(&t);
    insta::assert_snapshot!(printed);
    let (parsed, errors) = parse_trajectory(&printed);
    assert_eq!(errors, vec![]);
    assert_eq!(parsed, read_back(&t));
    assert_eq!(print_trajectory(&parsed), printed);
    // The third line state can be a delta; the breakpoint target is full.
    assert_eq!(
        parsed
            .steps
            .iter()
            .map(|step| step.delta)
            .collect::<Vec<_>>(),
        [true, true, true, false, false, false]
    );
}

#[test]
fn inverse_trajectory_snapshot() {
    let t = inverse_trajectory();
    let printed = print_trajectory(&t);
    insta::assert_snapshot!(printed);
    let (parsed, errors) = parse_trajectory(&printed);
    assert_eq!(errors, vec![]);
    assert_eq!(parsed, read_back(&t));
    assert_eq!(print_trajectory(&parsed), printed);
    // `t` disappears going backwards: no delta can say that.
    assert!(!delta_possible(&t.steps[0].state, &t.steps[1].state));
    assert!(!parsed.steps[1].delta);
}

#[test]
fn forward_state_grammar_snapshot() {
    insta::assert_snapshot!(state_grammar(Some(SUM_SOURCE), false));
}

#[test]
fn inverse_state_grammar_snapshot() {
    insta::assert_snapshot!(state_grammar(Some(UPPER_SOURCE), true));
}

#[test]
fn trajectory_grammar_snapshot() {
    insta::assert_snapshot!(trajectory_grammar());
}

#[test]
fn breakpoint_on_the_second_of_two_identical_lines_resolves_back() {
    let TextAction::Breakpoint { src, occurrence } =
        breakpoint_action(&ndb_grammar::Source::new(SUM_SOURCE, Vec::new()), 5)
    else {
        unreachable!("breakpoint_action makes breakpoints")
    };
    assert_eq!((src.as_str(), occurrence), ("total += x", Some(2)));
    assert_eq!(
        resolve_breakpoint(
            &ndb_grammar::Source::new(SUM_SOURCE, Vec::new()),
            &src,
            occurrence
        ),
        Some(5)
    );
    assert_eq!(
        resolve_breakpoint(
            &ndb_grammar::Source::new(SUM_SOURCE, Vec::new()),
            &src,
            None
        ),
        Some(4)
    );
}

// ---------------------------------------------------------------------------
// Random trajectories.

/// Strings that stress the escaping: arbitrary Unicode, and short mixes of
/// quotes, backslashes, control characters, braces, token-like text, emoji.
fn nasty_string() -> BoxedStrategy<String> {
    prop_oneof![
        3 => "[a-z0-9 '\"\\\\<|>.{}:,\\[\\]\\x00-\\x1f\\x7f\u{e9}\u{4e2d}\u{1f600}\u{200d}]{0,12}",
        1 => any::<String>(),
        1 => prop::sample::select(vec![
            String::new(),
            "..".to_string(),
            "<|frame_sep|>".to_string(),
            "<|trace_end|>".to_string(),
            "\\u0041".to_string(),
            "\"}".to_string(),
            "'\\n'".to_string(),
        ]),
    ]
    .boxed()
}

/// Names the Lark grammar accepts: Python identifiers.
fn identifier() -> BoxedStrategy<String> {
    "[A-Za-z_][A-Za-z0-9_]{0,5}".boxed()
}

/// Any name but the delta marker (which a Python frame cannot have).
fn any_name() -> BoxedStrategy<String> {
    prop_oneof![2 => identifier(), 1 => nasty_string()]
        .prop_filter("`..` is the delta marker", |name| name != "..")
        .boxed()
}

/// Source text of a state: one line, with indentation and trailing spaces,
/// and no special token (no `>` keeps `<|...|>` from forming).
fn src_text() -> BoxedStrategy<String> {
    "[ \t]{0,4}[a-z0-9 =+()\"'\\\\<|#:.,\u{e9}\u{1f600}]{0,16}[ \t]{0,2}".boxed()
}

fn source_text() -> BoxedStrategy<String> {
    prop_oneof![
        any::<String>(),
        prop::collection::vec(src_text(), 0..6).prop_map(|lines| lines.join("\n")),
    ]
    .prop_filter("the source cannot hold `<|frame_sep|>`", |source| {
        !source.contains("<|frame_sep|>")
    })
    .boxed()
}

fn action() -> BoxedStrategy<TextAction> {
    prop_oneof![
        Just(TextAction::StepInto),
        Just(TextAction::StepOver),
        Just(TextAction::StepReturn),
        Just(TextAction::Continue),
        Just(TextAction::InvStepInto),
        Just(TextAction::InvStepOver),
        Just(TextAction::InvStepCall),
        (src_text(), prop::option::of(0u32..5))
            .prop_map(|(src, occurrence)| TextAction::Breakpoint { src, occurrence }),
    ]
    .boxed()
}

/// The (event, inverse) pairs the language has.
const VALID_KINDS: [(TextEvent, bool); 13] = [
    (TextEvent::Call, false),
    (TextEvent::Line, false),
    (TextEvent::Return, false),
    (TextEvent::Exception, false),
    (TextEvent::ExitNormal, false),
    (TextEvent::ExitError, false),
    (TextEvent::ExitNever, false),
    (TextEvent::Call, true),
    (TextEvent::Line, true),
    (TextEvent::LineCall, true),
    (TextEvent::Return, true),
    (TextEvent::Exception, true),
    (TextEvent::ExitEntry, true),
];

/// The raw material of one state; [`build`] turns a list of them into a
/// trajectory whose locals often extend the previous state's, so that
/// deltas are common.
#[derive(Clone, Debug)]
struct RawState {
    kind: usize,
    src: String,
    /// Start from the previous state's locals (when it has some).
    derive: bool,
    changes: Vec<(usize, String)>,
    fresh: Vec<(String, String)>,
    value: String,
    wanted_delta: bool,
    action: TextAction,
}

fn raw_state(names: BoxedStrategy<String>) -> impl Strategy<Value = RawState> {
    (
        0..VALID_KINDS.len(),
        src_text(),
        prop::bool::weighted(0.7),
        prop::collection::vec((0usize..8, nasty_string()), 0..3),
        prop::collection::vec((names, nasty_string()), 0..4),
        nasty_string(),
        prop::bool::weighted(0.7),
        action(),
    )
        .prop_map(
            |(kind, src, derive, changes, fresh, value, wanted_delta, action)| RawState {
                kind,
                src,
                derive,
                changes,
                fresh,
                value,
                wanted_delta,
                action,
            },
        )
}

fn has_locals(event: TextEvent) -> bool {
    matches!(
        event,
        TextEvent::Call | TextEvent::Line | TextEvent::LineCall
    )
}

fn build_state(raw: &RawState, previous: Option<&TextState>) -> TextState {
    let (event, inverse) = VALID_KINDS[raw.kind];
    let mut state = TextState {
        event,
        inverse,
        src: String::new(),
        locals: Locals::new(),
        value: None,
    };
    match event {
        TextEvent::ExitNormal
        | TextEvent::ExitError
        | TextEvent::ExitNever
        | TextEvent::ExitEntry => {}
        TextEvent::Return | TextEvent::Exception => {
            state.src = raw.src.clone();
            state.value = Some(raw.value.clone());
        }
        TextEvent::Call | TextEvent::Line | TextEvent::LineCall => {
            state.src = raw.src.clone();
            let mut locals = match previous {
                Some(previous) if raw.derive && has_locals(previous.event) => {
                    previous.locals.clone()
                }
                _ => Locals::new(),
            };
            if !locals.is_empty() {
                for (index, value) in &raw.changes {
                    let index = index % locals.len();
                    locals[index].1 = value.clone();
                }
            }
            for (name, value) in &raw.fresh {
                if !locals.iter().any(|(existing, _)| existing == name) {
                    locals.push((name.clone(), value.clone()));
                }
            }
            state.locals = locals;
        }
    }
    state
}

fn build(source: String, start: RawState, steps: Vec<RawState>, ended: bool) -> TextTrajectory {
    let start = build_state(&start, None);
    let mut previous = start.clone();
    let mut built = Vec::new();
    for raw in &steps {
        let state = build_state(raw, Some(&previous));
        let delta = raw.wanted_delta && delta_possible(&previous, &state);
        built.push(TextStep {
            action: raw.action.clone(),
            state: state.clone(),
            delta,
        });
        previous = state;
    }
    TextTrajectory {
        source,
        start,
        steps: built,
        ended,
    }
}

fn trajectory_with(names: BoxedStrategy<String>) -> BoxedStrategy<TextTrajectory> {
    (
        source_text(),
        raw_state(names.clone()),
        prop::collection::vec(raw_state(names), 0..8),
        any::<bool>(),
    )
        .prop_map(|(source, start, steps, ended)| build(source, start, steps, ended))
        .boxed()
}

fn trajectory() -> BoxedStrategy<TextTrajectory> {
    trajectory_with(any_name())
}

/// What parsing a printed trajectory gives back: its normal form
/// ([`normalize_trajectory`]), except that a state's source text stays as
/// written (indentation and trailing spaces included).
fn read_back(t: &TextTrajectory) -> TextTrajectory {
    let mut normal = normalize_trajectory(t);
    let written = std::iter::once(&t.start).chain(t.steps.iter().map(|step| &step.state));
    let read = std::iter::once(&mut normal.start)
        .chain(normal.steps.iter_mut().map(|step| &mut step.state));
    for (read, written) in read.zip(written) {
        if !read.src.is_empty() {
            read.src = written.src.clone();
        }
    }
    normal
}

/// An arbitrary state, including combinations the language does not have.
fn any_state() -> impl Strategy<Value = TextState> {
    let event = prop::sample::select(vec![
        TextEvent::Call,
        TextEvent::Line,
        TextEvent::Return,
        TextEvent::Exception,
        TextEvent::LineCall,
        TextEvent::ExitNormal,
        TextEvent::ExitError,
        TextEvent::ExitNever,
        TextEvent::ExitEntry,
    ]);
    (
        event,
        any::<bool>(),
        src_text(),
        prop::collection::vec((identifier(), nasty_string()), 0..3),
        prop::option::of(nasty_string()),
    )
        .prop_map(|(event, inverse, src, pairs, value)| {
            let mut locals = Locals::new();
            for (name, value) in pairs {
                if !locals.iter().any(|(existing, _)| *existing == name) {
                    locals.push((name, value));
                }
            }
            TextState {
                event,
                inverse,
                src,
                locals,
                value,
            }
        })
}

// ---------------------------------------------------------------------------
// Mutations of valid text.

#[derive(Clone, Debug)]
enum Mutation {
    Cut(usize),
    InsertToken(usize, usize),
    InsertText(usize, String),
    Delete(usize, usize),
    Duplicate(usize, usize),
}

fn mutation() -> impl Strategy<Value = Mutation> {
    prop_oneof![
        any::<usize>().prop_map(Mutation::Cut),
        (any::<usize>(), 0..SPECIAL_TOKENS.len()).prop_map(|(at, t)| Mutation::InsertToken(at, t)),
        (any::<usize>(), nasty_string()).prop_map(|(at, s)| Mutation::InsertText(at, s)),
        (any::<usize>(), 0usize..40).prop_map(|(at, n)| Mutation::Delete(at, n)),
        (any::<usize>(), 0usize..80).prop_map(|(at, n)| Mutation::Duplicate(at, n)),
    ]
}

/// Applies mutations to the bytes of `text` (so cuts can split characters)
/// and reads the result back lossily, as a model's broken output might be.
fn mutate(text: &str, mutations: &[Mutation]) -> String {
    let mut bytes = text.as_bytes().to_vec();
    for mutation in mutations {
        let len = bytes.len();
        let at = |position: usize| if len == 0 { 0 } else { position % (len + 1) };
        match mutation {
            Mutation::Cut(position) => bytes.truncate(at(*position)),
            Mutation::InsertToken(position, token) => {
                let position = at(*position);
                bytes.splice(position..position, SPECIAL_TOKENS[*token].bytes());
            }
            Mutation::InsertText(position, inserted) => {
                let position = at(*position);
                bytes.splice(position..position, inserted.bytes());
            }
            Mutation::Delete(position, count) => {
                let position = at(*position);
                let end = (position + count).min(len);
                bytes.drain(position..end);
            }
            Mutation::Duplicate(position, count) => {
                let position = at(*position);
                let end = (position + count).min(len);
                let copy = bytes[position..end].to_vec();
                bytes.splice(end..end, copy);
            }
        }
    }
    String::from_utf8_lossy(&bytes).into_owned()
}

/// Text made of the language's pieces in random order: tokens, JSON
/// fragments, source-like text.
fn token_soup() -> impl Strategy<Value = String> {
    let piece = prop_oneof![
        3 => prop::sample::select(SPECIAL_TOKENS.to_vec()).prop_map(str::to_string),
        1 => prop::sample::select(vec![
            "{", "}", "\"", ":", ",", "\\", "\\u", "\\ud83d", "\\ude00", "\"..\"", "\"x\"", " ",
            "\n", "7", "<|", "|>", "<|nope|>", "{\"..\": \"..\"", "{\"a\": \"1\"}",
        ])
        .prop_map(str::to_string),
        1 => nasty_string(),
    ];
    prop::collection::vec(piece, 0..40).prop_map(|pieces| pieces.concat())
}

fn check_never_panics(text: &str) {
    let (_, errors) = parse_trajectory(text);
    for error in &errors {
        assert!(error.offset <= text.len(), "{error:?} in {text:?}");
    }
    let base = locals(&[("x", "1"), ("y", "2")]);
    for previous in [None, Some(&base)] {
        let (state, _, errors) = parse_state(text, previous);
        assert_eq!(state.is_some(), errors.is_empty());
        for error in &errors {
            assert!(error.offset <= text.len(), "{error:?} in {text:?}");
        }
    }
}

proptest! {
    #![proptest_config(Config { cases: 512, ..Config::default() })]

    #[test]
    fn valid_trajectories_round_trip(t in trajectory()) {
        let printed = print_trajectory(&t);
        let (parsed, errors) = parse_trajectory(&printed);
        prop_assert_eq!(errors, vec![], "{}", printed);
        prop_assert_eq!(&parsed, &read_back(&t), "{}", printed);
        prop_assert_eq!(&normalize_trajectory(&parsed), &normalize_trajectory(&t));
    }

    #[test]
    fn any_state_prints_as_its_normal_form(
        states in prop::collection::vec((any_state(), action(), any::<bool>()), 1..6),
        ended in any::<bool>(),
    ) {
        let mut steps: Vec<TextStep> = states
            .into_iter()
            .map(|(state, action, delta)| TextStep { action, state, delta })
            .collect();
        let start = steps.remove(0).state;
        let t = TextTrajectory { source: "def f():\n    pass".to_string(), start, steps, ended };
        let printed = print_trajectory(&t);
        let (parsed, errors) = parse_trajectory(&printed);
        prop_assert_eq!(errors, vec![], "{}", printed);
        prop_assert_eq!(parsed, read_back(&t), "{}", printed);
    }

    #[test]
    fn each_state_parses_from_its_prompt(t in trajectory()) {
        // What a model writes after `prompt_prefix` is read back by
        // `parse_state`, against the previous state's locals.
        let printed = print_trajectory(&t);
        let mut previous = t.start.clone();
        for (index, step) in t.steps.iter().enumerate() {
            let before = TextTrajectory {
                steps: t.steps[..index].to_vec(),
                ended: false,
                ..t.clone()
            };
            let prompt = prompt_prefix(&before, &step.action);
            prop_assert!(printed.starts_with(&prompt));
            let completion = &printed[prompt.len()..];
            let previous_locals = has_locals(previous.event).then_some(&previous.locals);
            let (state, delta, errors) = parse_state(completion, previous_locals);
            prop_assert_eq!(errors, vec![]);
            prop_assert_eq!(delta, step.delta);
            let expected = read_back(&t).steps[index].state.clone();
            prop_assert_eq!(state, Some(expected));
            let base = step.delta.then_some(&previous.locals);
            prop_assert!(completion.starts_with(&print_state(&step.state, base)));
            previous = step.state.clone();
        }
    }

    #[test]
    fn parsing_arbitrary_text_never_panics(text in any::<String>()) {
        check_never_panics(&text);
    }

    #[test]
    fn parsing_arbitrary_bytes_never_panics(bytes in prop::collection::vec(any::<u8>(), 0..200)) {
        check_never_panics(&String::from_utf8_lossy(&bytes));
    }

    #[test]
    fn parsing_token_soup_never_panics(text in token_soup()) {
        check_never_panics(&text);
    }

    #[test]
    fn parsing_mutated_trajectories_never_panics(
        t in trajectory(),
        mutations in prop::collection::vec(mutation(), 1..4),
    ) {
        let text = mutate(&print_trajectory(&t), &mutations);
        check_never_panics(&text);
    }
}

#[test]
fn truncated_trajectories_parse_to_a_prefix() {
    // Every cut of a printed trajectory reads back as its first steps. Only
    // the step being cut may differ: a forward line state ends with its
    // source text, and a cut there is indistinguishable from a shorter line.
    let t = forward_trajectory();
    let printed = print_trajectory(&t);
    let expected = read_back(&t);
    // A model writes special tokens whole, so no cut falls inside one.
    let inside_a_token = |cut: usize| {
        SPECIAL_TOKENS.iter().any(|token| {
            printed
                .match_indices(token)
                .any(|(start, _)| start < cut && cut < start + token.len())
        })
    };
    let cuts =
        (0..=printed.len()).filter(|cut| printed.is_char_boundary(*cut) && !inside_a_token(*cut));
    for cut in cuts {
        let (parsed, _) = parse_trajectory(&printed[..cut]);
        let whole = parsed.steps.len().saturating_sub(1);
        assert!(
            parsed.steps.len() <= expected.steps.len()
                && parsed.steps[..whole] == expected.steps[..whole],
            "cut at {cut}: {:?}",
            &printed[..cut]
        );
        if let Some(last) = parsed.steps.last() {
            let wanted = &expected.steps[whole];
            assert_eq!(last.action, wanted.action, "cut at {cut}");
            assert_eq!(last.state.event, wanted.state.event, "cut at {cut}");
            assert!(
                wanted.state.src.starts_with(&last.state.src),
                "cut at {cut}"
            );
        }
    }
}

// ---------------------------------------------------------------------------
// The Lark grammars under llguidance.

/// Writes the cases for `lark_check.py`: one folder per grammar, texts it
/// must accept and texts it must reject.
struct LarkCases {
    directory: std::path::PathBuf,
    count: usize,
}

impl LarkCases {
    fn new() -> LarkCases {
        let directory = std::env::temp_dir().join(format!("ndb-lark-check-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&directory);
        std::fs::create_dir_all(&directory).expect("create the cases folder");
        std::fs::write(directory.join("tokens.txt"), SPECIAL_TOKENS.join("\n"))
            .expect("write tokens.txt");
        LarkCases {
            directory,
            count: 0,
        }
    }

    fn case(&mut self, grammar: &str, accept: &[String], reject: &[&str]) {
        let case = self.directory.join(format!("case_{:02}", self.count));
        self.count += 1;
        std::fs::create_dir_all(&case).expect("create a case folder");
        std::fs::write(case.join("grammar.lark"), grammar).expect("write the grammar");
        for (index, text) in accept.iter().enumerate() {
            std::fs::write(case.join(format!("accept_{index:03}.txt")), text)
                .expect("write a text");
        }
        for (index, text) in reject.iter().enumerate() {
            std::fs::write(case.join(format!("reject_{index:03}.txt")), text)
                .expect("write a text");
        }
    }
}

/// Each state of a trajectory as the model writes it after `<|frame_sep|>`.
fn printed_states(t: &TextTrajectory) -> Vec<(TextState, String)> {
    let mut states = vec![(t.start.clone(), print_state(&t.start, None))];
    let mut previous = &t.start;
    for step in &t.steps {
        let base =
            (step.delta && delta_possible(previous, &step.state)).then_some(&previous.locals);
        states.push((step.state.clone(), print_state(&step.state, base)));
        previous = &step.state;
    }
    states
}

#[test]
fn lark_grammars_agree_with_the_printer_under_llguidance() {
    let python = std::env::var("PYTHON").unwrap_or_else(|_| "python3".to_string());
    let importable = std::process::Command::new(&python)
        .args(["-c", "import llguidance"])
        .output()
        .map(|output| output.status.success())
        .unwrap_or(false);
    // CI installs llguidance (.ci/setup): there a missing engine is a failure.
    assert!(
        importable || std::env::var_os("CI").is_none(),
        "llguidance must be importable in CI (see .ci/setup)"
    );
    if !importable {
        eprintln!(
            "skipped: `{python} -c 'import llguidance'` failed; `pip install llguidance` to check the Lark grammars"
        );
        return;
    }

    let mut cases = LarkCases::new();
    let forward = forward_trajectory();
    let inverse = inverse_trajectory();

    // The forward state grammar of f's source, on f's states, with and
    // without the separator that may follow.
    let mut accept = Vec::new();
    for (_, printed) in printed_states(&forward) {
        accept.push(format!("{printed}<|action_sep|>"));
        accept.push(format!("{printed}<|trace_end|>"));
        accept.push(printed);
    }
    accept.push(r#"<|call_sep|><|src_sep|>def f(xs):<|arg_sep|>{ "xs":"[]" ,  "..": ".."}"#.into());
    accept.push(r#"<|call_sep|><|src_sep|>def f(xs):<|arg_sep|>{}"#.into());
    accept.push(r#"<|call_sep|><|src_sep|>def f(xs):<|arg_sep|>{"_x1": "\u00e9\n\\\"", "café": "", ".0": "<list_iterator>"}"#.into());
    cases.case(
        &state_grammar(Some(SUM_SOURCE), false),
        &accept,
        &[
            "<|line_sep|><|arg_sep|>{}<|src_sep|>    not a line of f",
            "<|line_sep|><|arg_sep|>{}<|src_sep|>total = 0",
            "<|line_sep|><|src_sep|>    total = 0<|arg_sep|>{}",
            "<|inv_line_sep|><|src_sep|>    total = 0<|arg_sep|>{}",
            "<|inv_exit_entry|>",
            r#"<|call_sep|><|src_sep|>def f(xs):<|arg_sep|>{"xs": 5}"#,
            r#"<|call_sep|><|src_sep|>def f(xs):<|arg_sep|>{"xs": {"a": "1"}}"#,
            r#"<|call_sep|><|src_sep|>def f(xs):<|arg_sep|>{"xs": "\q"}"#,
            "<|call_sep|><|src_sep|>def f(xs):<|arg_sep|>{\"xs\": \"a\nb\"}",
            r#"<|call_sep|><|src_sep|>def f(xs):<|arg_sep|>{"..": "1"}"#,
            r#"<|call_sep|><|src_sep|>def f(xs):<|arg_sep|>{"1x": "1"}"#,
            r#"<|call_sep|><|src_sep|>def f(xs):<|arg_sep|>{"xs": "[1, 2]""#,
            r#"<|return_sep|><|src_sep|>    return total<|arg_sep|>6"#,
            "<|exit_normal|><|action_sep|><|step_into|>",
            "<|frame_sep|><|exit_normal|>",
        ],
    );

    // After a breakpoint: a stop on its line (locals written freely) or an
    // exit, nothing else.
    let breakpoint = TextAction::Breakpoint {
        src: "total += x".to_string(),
        occurrence: Some(2),
    };
    cases.case(
        &answer_grammar(
            Some(&ndb_grammar::Source::new(SUM_SOURCE, Vec::new())),
            &breakpoint,
            None,
        ),
        &[
            r#"<|line_sep|><|arg_sep|>{"xs": "[1, 2]", "total": "1", "x": "1"}<|src_sep|>        total += x"#.into(),
            r#"<|line_sep|><|arg_sep|>{"total": "3"}<|src_sep|>        total += x<|action_sep|>"#.into(),
            "<|exit_normal|>".into(),
            "<|exit_never|><|trace_end|>".into(),
        ],
        &[
            "<|line_sep|><|arg_sep|>{}<|src_sep|>    total = 0",
            "<|line_sep|><|arg_sep|>{}<|src_sep|>    for x in xs:",
            r#"<|return_sep|><|src_sep|>    return total<|arg_sep|>6"#,
            r#"<|call_sep|><|src_sep|>def f(xs):<|arg_sep|>{"xs": "[]"}"#,
            r#"<|exception_sep|><|src_sep|>        total += x<|arg_sep|>"TypeError()""#,
        ],
    );

    // After inv_step_call from the return: the function's call, with any
    // arguments, nothing else.
    let returned = TextState {
        event: TextEvent::Return,
        inverse: true,
        src: "    return total".to_string(),
        locals: Vec::new(),
        value: Some("6".to_string()),
    };
    cases.case(
        &answer_grammar(
            Some(&ndb_grammar::Source::new(SUM_SOURCE, vec![sum_function()])),
            &TextAction::InvStepCall,
            Some(&returned),
        ),
        &[
            r#"<|inv_call_sep|><|src_sep|>def f(xs):<|arg_sep|>{"xs": "[1, 2]"}"#.into(),
            r#"<|inv_call_sep|><|src_sep|>def f(xs):<|arg_sep|>{"xs": "[3]"}<|action_sep|>"#.into(),
        ],
        &[
            r#"<|inv_call_sep|><|src_sep|>    total = 0<|arg_sep|>{"xs": "[3]"}"#,
            r#"<|inv_line_sep|><|src_sep|>    total = 0<|arg_sep|>{"xs": "[3]"}"#,
            r#"<|inv_return_sep|><|src_sep|>    return total<|arg_sep|>"6""#,
            "<|inv_exit_entry|>",
        ],
    );

    // The direct forms' answers: one Python literal and its newline; the
    // arguments of a call and its closing parenthesis.
    cases.case(
        &literal_grammar(),
        &[
            "7.0\n".into(),
            " [1, 2]\n".into(),
            "-3\n".into(),
            "'it''s'\n".replace("''", "\\'"),
            "\"a\\\"b\"\n".into(),
            "[1, [2, 'x'], (3,), {'k': None}, {1, 2}, set(), True]\n".into(),
            "{'a': [], 'b': ()}\n".into(),
            "(1, 2,)\n".into(),
            "b'\\x00'\n".into(),
        ],
        &[
            "7.0", "f(3)\n", "[1, 2\n", "x\n", "'open\n", "(1 2)\n", "7.0\n\n",
        ],
    );
    cases.case(
        &arguments_grammar(),
        &[
            ")".into(),
            "[3, 4, 7, 10])".into(),
            "'abc', 2, {'k': [1]})".into(),
        ],
        &["[3, 4])\n", "x)", "1, )", "[3, 4]"],
    );

    // The inverse state grammar of g's source, on g's states.
    let accept: Vec<String> = printed_states(&inverse)
        .into_iter()
        .map(|(_, printed)| printed)
        .collect();
    cases.case(
        &state_grammar(Some(UPPER_SOURCE), true),
        &accept,
        &[
            "<|return_sep|><|src_sep|>    return t + \"!\"<|arg_sep|>\"1\"",
            "<|inv_line_sep|><|arg_sep|>{}<|src_sep|>    t = s.upper()",
            "<|exit_normal|>",
        ],
    );

    // Random trajectories (identifier names, nasty values and source text):
    // their states under the source-free state grammars, and the whole text
    // under the trajectory grammar.
    let mut runner = TestRunner::new_with_rng(
        Config::default(),
        TestRng::from_seed(RngAlgorithm::ChaCha, &[7; 32]),
    );
    let strategy = trajectory_with(identifier());
    let mut forward_states = Vec::new();
    let mut inverse_states = Vec::new();
    let mut whole = vec![print_trajectory(&forward), print_trajectory(&inverse)];
    for _ in 0..40 {
        let t = strategy
            .new_tree(&mut runner)
            .expect("a random trajectory")
            .current();
        for (state, printed) in printed_states(&t) {
            let inverse = matches!(state.event, TextEvent::LineCall | TextEvent::ExitEntry)
                || (state.inverse
                    && !matches!(
                        state.event,
                        TextEvent::ExitNormal | TextEvent::ExitError | TextEvent::ExitNever
                    ));
            if inverse {
                inverse_states.push(printed);
            } else {
                forward_states.push(printed);
            }
        }
        whole.push(print_trajectory(&t));
    }
    cases.case(
        &state_grammar(None, false),
        &forward_states,
        &["<|line_sep|><|arg_sep|>{}<|src_sep|>a\nb"],
    );
    cases.case(&state_grammar(None, true), &inverse_states, &[]);
    cases.case(
        &trajectory_grammar(),
        &whole,
        &[
            "<|frame_sep|><|exit_normal|>",
            "<|trace_context_start|>x\n<|frame_sep|><|exit_normal|><|action_sep|><|step_into|>",
        ],
    );

    let script = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/lark_check.py");
    let output = std::process::Command::new(&python)
        .arg(script)
        .arg(&cases.directory)
        .output()
        .expect("run lark_check.py");
    let report = format!(
        "{}{}",
        String::from_utf8_lossy(&output.stdout),
        String::from_utf8_lossy(&output.stderr)
    );
    eprintln!("{report}");
    assert!(output.status.success(), "lark_check.py failed:\n{report}");
    let _ = std::fs::remove_dir_all(&cases.directory);
}

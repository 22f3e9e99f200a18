//! The editor features as pure functions of one document version, the
//! user's choices and the answers known so far: inlay hints, hovers, code
//! lenses and code actions as plain data with byte offsets. Each feature
//! also says which questions it still needs answered; the server asks them
//! off the request path and refreshes when they arrive.

use std::collections::{BTreeSet, HashSet};
use std::fmt::Write as _;
use std::ops::Range;
use std::sync::Arc;

use ndb_grammar::{EventKind, ExitStatus, StateView};
use ndb_inference::debugger::{Confidence, State, Verdict, LIKELY_THRESHOLD};
use ndb_inference::suggest::{Budget, Seed, Suggestion};

use crate::document::DocumentSnapshot;
use crate::engine::{Answer, Backend, Key, Question, SuggestPlan};
use crate::entry_calls::{self, EntryCall, ExternalCalls, UserEntryCalls};
use crate::lsp_ext::{
    ChooseEntryCall, Command, FunctionArgument, InsertSuggestion, LineArgument, SuggestInputs,
};
use crate::settings::{InsertStyle, Settings};
use crate::syntax::{Analysis, Function, FunctionKind};

/// Where answers come from: the engine's cache in the server, a map in tests.
pub trait Answers {
    fn cached(&self, key: &Key) -> Option<Arc<Answer>>;
    /// The latest answer to the same question about another source.
    fn latest(&self, key: &Key) -> Option<(u64, Arc<Answer>)>;
    /// Why no model answers will come (the model failed to load), if so.
    fn unavailable(&self) -> Option<crate::engine::ModelUnavailable>;
    /// The name of what answers, for tooltips.
    fn answerer(&self) -> String;
}

/// Everything a feature looks at.
pub struct View<'a> {
    pub uri: &'a str,
    pub document: &'a DocumentSnapshot,
    /// 0-based lines.
    pub breakpoints: &'a BTreeSet<usize>,
    pub user: &'a UserEntryCalls,
    pub external: &'a ExternalCalls,
    pub settings: &'a Settings,
    /// Functions the user asked to predict (qualified names).
    pub predicted_functions: &'a HashSet<String>,
}

impl View<'_> {
    /// Who answers hints and hovers.
    pub fn engine(&self) -> Backend {
        if self.settings.allow_running_code {
            self.settings.engine
        } else {
            Backend::Model
        }
    }

    /// The function runnable at `index` with its entry calls, best first.
    pub fn entry_calls(&self, index: usize) -> Vec<EntryCall> {
        entry_calls::discover(&self.document.analysis(), index, self.user, self.external)
    }

    fn key(&self, entry_call: &str, question: Question, engine: Backend) -> Key {
        Key {
            source_hash: self.document.hash,
            entry_call: entry_call.to_string(),
            question,
            engine,
        }
    }

    /// The key of the return-value question of a function's entry call.
    pub fn output_key(&self, entry_call: &str) -> Key {
        self.key(
            entry_call,
            Question::Output(self.settings.output_mode),
            self.engine(),
        )
    }

    /// The key of the suggest-inputs question of a function: the plan
    /// follows the settings (running allowed, the model on or off, the
    /// budget), and the function's entry calls are the search's seeds.
    pub fn suggest_key(&self, function: &str, output: Option<&str>) -> Key {
        let settings = &self.settings.suggestions;
        let analysis = self.document.analysis();
        let seeds = analysis
            .functions
            .iter()
            .position(|f| f.name == function && f.kind == FunctionKind::Function)
            .map(|index| {
                self.entry_calls(index)
                    .iter()
                    .filter_map(|entry| {
                        Seed::from_call(function, &entry.call, &entry.origin.describe())
                    })
                    .collect()
            })
            .unwrap_or_default();
        let plan = SuggestPlan {
            run: self.settings.allow_running_code,
            use_model: settings.use_model,
            budget: Budget {
                runs: settings.max_runs,
                time: std::time::Duration::from_secs(settings.max_seconds.max(1)),
            },
            seeds,
        };
        let engine = if plan.use_model {
            Backend::Model
        } else {
            Backend::Tracer
        };
        self.key(
            "",
            Question::Suggest {
                function: function.to_string(),
                output: output.map(|o| o.trim().to_string()),
                plan,
            },
            engine,
        )
    }

    fn line_end(&self, line: usize) -> usize {
        self.document
            .line_index
            .line_range(&self.document.text, line)
            .end
    }
}

/// Ends the label of a hint whose answer is still coming (alone, or after
/// the answer for an earlier version of the file). Distinct from the `…`
/// that ends a label cut to its maximum length.
pub const PENDING: &str = "⋯";

/// What an inlay hint shows.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum HintKind {
    /// Locals at a neural breakpoint.
    Locals,
    /// A function's return value.
    ReturnValue,
}

/// One inlay hint.
#[derive(Clone, Debug, PartialEq)]
pub struct Hint {
    pub offset: usize,
    pub label: String,
    pub kind: HintKind,
    /// The question it shows the answer to (for `inlayHint/resolve`).
    pub key: Key,
    /// The 0-based line it belongs to.
    pub line: usize,
}

/// Hints plus the questions still to ask.
#[derive(Debug, Default)]
pub struct Hints {
    pub hints: Vec<Hint>,
    pub needed: Vec<Key>,
}

/// How an answer relates to the current text.
enum Found {
    Fresh(Arc<Answer>),
    Stale(Arc<Answer>),
    Missing,
}

fn find(answers: &dyn Answers, key: &Key) -> Found {
    if let Some(answer) = answers.cached(key) {
        return Found::Fresh(answer);
    }
    match answers.latest(key) {
        Some((_, answer)) => Found::Stale(answer),
        None => Found::Missing,
    }
}

/// Inlay hints for the lines in `lines` (0-based, inclusive start, exclusive end).
pub fn inlay_hints(view: &View, lines: Range<usize>, answers: &dyn Answers) -> Hints {
    let mut result = Hints::default();
    if answers.unavailable().is_some() && view.engine() == Backend::Model {
        return result;
    }
    let analysis = view.document.analysis();
    let settings = &view.settings.inlay_hints;
    // Code that does not parse is not sent to the debugger; the answers for
    // the last text that did stay visible, marked stale.
    let can_ask = !analysis.has_errors;
    let prefix = match view.engine() {
        Backend::Model => "≈ ",
        Backend::Tracer => "(ran) ",
        Backend::Auto => "",
    };
    if settings.breakpoints {
        for &line in view.breakpoints.range(lines.clone()) {
            let Some(index) = analysis.function_at_line(line) else {
                continue;
            };
            let Some(entry) = view.entry_calls(index).into_iter().next() else {
                continue;
            };
            let key = view.key(
                &entry.call,
                Question::AtLine(line as u32 + 1),
                view.engine(),
            );
            let (label, prefix, stale) = match find(answers, &key) {
                Found::Fresh(answer) => (
                    locals_label(&answer),
                    answer_prefix(view.engine(), &answer),
                    false,
                ),
                Found::Stale(answer) => {
                    if can_ask {
                        result.needed.push(key.clone());
                    }
                    (
                        locals_label(&answer),
                        answer_prefix(view.engine(), &answer),
                        true,
                    )
                }
                Found::Missing => {
                    if can_ask {
                        result.needed.push(key.clone());
                        (String::new(), prefix, true)
                    } else {
                        continue;
                    }
                }
            };
            result.hints.push(Hint {
                offset: view.line_end(line),
                label: hint_label(prefix, &label, stale, settings.max_length),
                kind: HintKind::Locals,
                key,
                line,
            });
        }
    }
    if settings.return_values {
        for (index, function) in analysis.functions.iter().enumerate() {
            if function.kind == FunctionKind::Nested || !is_active(view, function) {
                continue;
            }
            if function.last_line < lines.start || function.def_line >= lines.end {
                continue;
            }
            let Some(entry) = view.entry_calls(index).into_iter().next() else {
                continue;
            };
            let key = view.output_key(&entry.call);
            let (answer, stale) = match find(answers, &key) {
                Found::Fresh(answer) => (answer, false),
                Found::Stale(answer) => {
                    if can_ask {
                        result.needed.push(key.clone());
                    }
                    (answer, true)
                }
                Found::Missing => {
                    if can_ask {
                        result.needed.push(key.clone());
                    }
                    continue;
                }
            };
            let Some((label, line)) = return_label(&answer, function) else {
                continue;
            };
            if !lines.contains(&line) {
                continue;
            }
            let prefix = answer_prefix(view.engine(), &answer);
            result.hints.push(Hint {
                offset: view.line_end(line),
                label: hint_label(prefix, &label, stale, settings.max_length),
                kind: HintKind::ReturnValue,
                key,
                line,
            });
        }
    }
    result
        .hints
        .sort_by_key(|hint| (hint.offset, hint.kind == HintKind::ReturnValue));
    result
}

/// A function is active when it holds a neural breakpoint or the user asked
/// to predict it.
fn is_active(view: &View, function: &Function) -> bool {
    view.predicted_functions.contains(&function.qualified_name)
        || view
            .breakpoints
            .range(function.def_line..=function.last_line)
            .next()
            .is_some()
}

fn locals_label(answer: &Answer) -> String {
    match answer {
        Answer::State(state) => match &state.view {
            Some(StateView::Event {
                locals: Some(locals),
                ..
            }) if locals.is_empty() => "(no locals)".to_string(),
            Some(StateView::Event {
                locals: Some(locals),
                ..
            }) => locals
                .iter()
                .map(|(name, value)| format!("{name} = {value}"))
                .collect::<Vec<_>>()
                .join(", "),
            Some(StateView::Event { kind, value, .. }) => {
                format!("{} {}", kind.as_str(), value.as_deref().unwrap_or(""))
            }
            Some(StateView::Exit { status, value }) => not_reached(*status, value.as_deref()),
            None => "?".to_string(),
        },
        Answer::Failed(_) => "?".to_string(),
        _ => "?".to_string(),
    }
}

fn not_reached(status: ExitStatus, value: Option<&str>) -> String {
    match status {
        ExitStatus::Normal => format!("not reached (returns {})", value.unwrap_or("None")),
        ExitStatus::Error => format!("not reached (raises {})", value.unwrap_or("?")),
        ExitStatus::Never => "not reached (does not finish)".to_string(),
    }
}

/// The label of a return value and the 0-based line it goes on.
fn return_label(answer: &Answer, function: &Function) -> Option<(String, usize)> {
    let Answer::Output {
        value,
        raised,
        state,
    } = answer
    else {
        return None;
    };
    let value = value.as_deref().unwrap_or("None");
    let label = if *raised {
        format!("raises {value}")
    } else {
        format!("returns {value}")
    };
    let stop_line = match &state.view {
        Some(StateView::Event {
            line,
            kind: EventKind::Return | EventKind::Exception,
            ..
        }) => Some(*line as usize - 1),
        _ => None,
    };
    let line = stop_line
        .filter(|line| (function.def_line..=function.last_line).contains(line))
        .or_else(|| function.return_lines.last().copied())
        .unwrap_or(function.last_line);
    Some((label, line))
}

/// Longest reason for a missing answer shown in a tooltip or hover (a model's
/// partial answer can be long).
const MAX_REASON: usize = 300;

/// A hint's label: `prefix` (who answered), then `text` cut to fit `max`
/// characters in all, then, while a new answer is coming (`stale`), the
/// pending mark, which the cut never takes: a long answer for an earlier
/// text still shows that it is being replaced. No text, only the mark.
fn hint_label(prefix: &str, text: &str, stale: bool, max: usize) -> String {
    let mut label = prefix.to_string();
    if !text.is_empty() {
        let mark = if stale {
            PENDING.chars().count() + 1
        } else {
            0
        };
        let room = max.saturating_sub(prefix.chars().count() + mark);
        label.push_str(&bounded(text, room));
        if stale {
            label.push(' ');
        }
    }
    if stale {
        label.push_str(PENDING);
    }
    label
}

/// Cuts `text` to at most `max` characters, ending in `…` when cut.
pub fn bounded(text: &str, max: usize) -> String {
    let max = max.max(4);
    if text.chars().count() <= max {
        return text.to_string();
    }
    let mut cut: String = text.chars().take(max - 1).collect();
    cut.push('…');
    cut
}

fn confidence_text(confidence: Option<Confidence>) -> String {
    match confidence {
        Some(confidence) => {
            let verdict = match confidence.verdict() {
                Verdict::Likely => "likely".to_string(),
                Verdict::Guess => format!(
                    "**a guess**: below {:.0}%, the model's answers were right less than half the time",
                    LIKELY_THRESHOLD * 100.0
                ),
            };
            let agreement = if confidence.samples > 1 {
                format!(
                    "; {} of {} samples agree",
                    confidence.votes, confidence.samples
                )
            } else {
                String::new()
            };
            format!("{:.0}% ({verdict}{agreement})", confidence.value() * 100.0)
        }
        None => "certain (the code was run)".to_string(),
    }
}

/// Whether `name` is bound by the function's own code (`name = ...`,
/// `name += ...`, `for name in`, `for a, name in`, `with ... as name`):
/// a local the predicted state may show as not bound yet.
fn assigned_in(function_text: &str, name: &str) -> bool {
    let is_ident = |c: char| c.is_alphanumeric() || c == '_';
    function_text.lines().any(|line| {
        let line = line.trim_start();
        if let Some(rest) = line.strip_prefix(name) {
            let rest = rest.trim_start();
            let assigns = rest.starts_with('=') && !rest.starts_with("==")
                || ["+=", "-=", "*=", "/=", "//=", "%=", "|=", "&=", ":"]
                    .iter()
                    .any(|op| rest.starts_with(op));
            if assigns && !rest.starts_with(|c: char| is_ident(c)) {
                return true;
            }
        }
        let bound_by = |keyword: &str, end: &str| {
            line.split(keyword).skip(1).any(|after| {
                let targets = after.split(end).next().unwrap_or("");
                targets
                    .split(|c: char| !is_ident(c))
                    .any(|word| word == name)
            })
        };
        (line.starts_with("for ") && bound_by("for ", " in "))
            || (line.starts_with("with ") && bound_by(" as ", ":"))
    })
}

/// How an answer is marked where it is shown: `≈` for the model's likely
/// answers, `≈?` for its guesses, `(ran)` for real values.
fn answer_prefix(engine: Backend, answer: &Answer) -> &'static str {
    let state = match answer {
        Answer::State(state) | Answer::Output { state, .. } => Some(state),
        _ => None,
    };
    match (
        answered_by(engine, answer),
        state.and_then(|state| state.confidence),
    ) {
        (Backend::Model, Some(confidence)) if confidence.verdict() == Verdict::Guess => "≈? ",
        (Backend::Model, _) => "≈ ",
        _ => "(ran) ",
    }
}

/// Who gave `answer`: the `auto` engine's answers are the tracer's when
/// they are real (no confidence) and the model's when predicted.
fn answered_by(engine: Backend, answer: &Answer) -> Backend {
    match (engine, answer) {
        (Backend::Auto, Answer::State(state) | Answer::Output { state, .. }) => {
            if state.confidence.is_some() {
                Backend::Model
            } else {
                Backend::Tracer
            }
        }
        (engine, _) => engine,
    }
}

/// Why the `auto` engine predicted instead of running, when it did.
fn auto_note(engine: Backend, answer: &Answer) -> Option<&str> {
    match (engine, answer) {
        (Backend::Auto, Answer::State(state) | Answer::Output { state, .. }) => {
            state.note.as_deref()
        }
        _ => None,
    }
}

fn provenance(engine: Backend, answerer: &str) -> String {
    match engine {
        Backend::Model => {
            format!("*Predicted by the neural debugger (model `{answerer}`); nothing was run.*")
        }
        Backend::Auto => format!(
            "*Real values where the code runs (`engine: auto`, {}); the neural debugger's \
             predictions (`{answerer}`) where it cannot.*",
            ndb_inference::tracer::SandboxReport::current()
        ),
        Backend::Tracer => {
            format!(
                "*Real values: the code was run by the tracer (`allowRunningCode`), {}.*",
                ndb_inference::tracer::SandboxReport::current()
            )
        }
    }
}

/// The full tooltip of a hint (markdown), for `inlayHint/resolve`.
pub fn hint_tooltip(view: &View, key: &Key, answers: &dyn Answers) -> Option<String> {
    let (answer, stale) = match find(answers, key) {
        Found::Fresh(answer) => (answer, false),
        Found::Stale(answer) => (answer, true),
        Found::Missing => {
            return Some(format!(
                "Predicting `{}`…\n\n{}",
                key.entry_call,
                provenance(key.engine, &answers.answerer())
            ))
        }
    };
    let mut text = String::new();
    match (&*answer, &key.question) {
        (Answer::State(state), Question::AtLine(line)) => {
            let _ = writeln!(
                text,
                "**At line {line}** (before it runs), entry call `{}`\n",
                key.entry_call
            );
            write_state(&mut text, state);
            let _ = writeln!(text, "\nConfidence: {}", confidence_text(state.confidence));
        }
        (
            Answer::Output {
                value,
                raised,
                state,
            },
            _,
        ) => {
            let verb = if *raised { "raises" } else { "returns" };
            let _ = writeln!(
                text,
                "**`{}` {verb}** `{}`\n\nConfidence: {}",
                key.entry_call,
                value.as_deref().unwrap_or("None"),
                confidence_text(state.confidence)
            );
        }
        (Answer::Failed(reason), _) => {
            let _ = writeln!(
                text,
                "No answer for `{}`: {}",
                key.entry_call,
                bounded(&reason.to_string(), MAX_REASON)
            );
        }
        _ => {}
    }
    if stale {
        let _ = writeln!(text, "\n*From an earlier version of the file; updating.*");
    }
    if view.document.analysis().has_errors {
        let _ = writeln!(
            text,
            "\n*The file has syntax errors; predictions resume once it parses.*"
        );
    }
    if let Some(note) = auto_note(key.engine, &answer) {
        let _ = writeln!(text, "\n*{}*", bounded(note, MAX_REASON));
    }
    let engine = answered_by(key.engine, &answer);
    let _ = write!(text, "\n{}", provenance(engine, &answers.answerer()));
    Some(text)
}

fn write_state(text: &mut String, state: &State) {
    if let Some(note) = &state.note {
        let _ = writeln!(text, "*{note}*\n");
    }
    match &state.view {
        Some(StateView::Event {
            locals: Some(locals),
            ..
        }) => {
            if locals.is_empty() {
                let _ = writeln!(text, "(no locals)");
            }
            text.push_str("```python\n");
            for (name, value) in locals {
                let _ = writeln!(text, "{name} = {value}");
            }
            text.push_str("```\n");
        }
        Some(StateView::Event {
            kind, value, line, ..
        }) => {
            let _ = writeln!(
                text,
                "stops at a `{}` of line {line}: `{}`",
                kind.as_str(),
                value.as_deref().unwrap_or("")
            );
        }
        Some(StateView::Exit { status, value }) => {
            let _ = writeln!(
                text,
                "The line is {}.",
                not_reached(*status, value.as_deref())
            );
        }
        None => {}
    }
}

/// A hover's content (markdown) and the range it is about.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct HoverInfo {
    pub markdown: String,
    pub range: Range<usize>,
}

/// A hover plus the questions still to ask for it.
#[derive(Debug, Default)]
pub struct HoverResult {
    pub hover: Option<HoverInfo>,
    pub needed: Vec<Key>,
}

/// The predicted value of the variable at `offset`, at its line.
pub fn hover(view: &View, offset: usize, answers: &dyn Answers) -> HoverResult {
    if !view.settings.hover.enable {
        return HoverResult::default();
    }
    let Some(target) = hover_target(view, offset) else {
        return HoverResult::default();
    };
    let (predicted_key, real_key) = hover_keys(view, &target);
    let predicted = answers.cached(&predicted_key);
    let real = real_key.as_ref().and_then(|key| answers.cached(key));
    if predicted.is_none() && view.engine() == Backend::Model && answers.unavailable().is_some() {
        return HoverResult::default();
    }
    let mut needed = Vec::new();
    if !target.analysis.has_errors {
        if predicted.is_none() {
            needed.push(predicted_key);
        }
        if let (Some(key), None) = (&real_key, &real) {
            needed.push(key.clone());
        }
    }
    let engine = predicted
        .as_deref()
        .map_or(view.engine(), |answer| answered_by(view.engine(), answer));
    let Some(mut markdown) =
        predicted_section(view, &target, predicted.as_deref(), real.is_some(), engine)
    else {
        return HoverResult::default();
    };
    markdown.push_str(&real_section(
        &target,
        predicted.as_deref(),
        real.as_deref(),
        real_key.is_some(),
    ));
    let _ = write!(
        markdown,
        "\nAt line {} (before it runs), entry call `{}` ({}).\n\n{}",
        target.stop_line + 1,
        target.entry.call,
        target.entry.origin.describe(),
        provenance(engine, &answers.answerer())
    );
    HoverResult {
        hover: Some(HoverInfo {
            markdown,
            range: target.range,
        }),
        needed,
    }
}

/// What a hover is about: the name under the cursor, its function, the line
/// the program stops at to read it and the entry call that gets it there.
struct HoverTarget {
    name: String,
    range: Range<usize>,
    analysis: Arc<Analysis>,
    function_index: usize,
    stop_line: usize,
    entry: EntryCall,
}

impl HoverTarget {
    fn function(&self) -> &Function {
        &self.analysis.functions[self.function_index]
    }
}

/// Finds what the hover at `offset` is about, or `None` where there is no hover.
fn hover_target(view: &View, offset: usize) -> Option<HoverTarget> {
    let tree = view.document.tree.as_ref()?;
    let (name, range) = crate::syntax::identifier_at(tree, &view.document.text, offset)?;
    let analysis = view.document.analysis();
    let line = view.document.line_index.line_of(range.start);
    let function_index = analysis.function_at_line(line)?;
    let function = &analysis.functions[function_index];
    if line == function.def_line && !function.has_parameter(&name) {
        return None;
    }
    // On the `def` line the parameters are shown at the call.
    let stop_line = if line == function.def_line {
        function.body_line
    } else {
        line
    };
    let entry = view.entry_calls(function_index).into_iter().next()?;
    Some(HoverTarget {
        name,
        range,
        analysis,
        function_index,
        stop_line,
        entry,
    })
}

/// The keys of the hover's questions: the prediction, and the real run to
/// check it against when the model predicts and running code is allowed.
fn hover_keys(view: &View, target: &HoverTarget) -> (Key, Option<Key>) {
    let question = Question::AtLine(target.stop_line as u32 + 1);
    let predicted_key = view.key(&target.entry.call, question.clone(), view.engine());
    let real_key = (view.settings.allow_running_code && view.engine() == Backend::Model)
        .then(|| view.key(&target.entry.call, question, Backend::Tracer));
    (predicted_key, real_key)
}

/// The value of the local `name` in an answer: `None` when the answer has no
/// locals, `Some(None)` when it has locals but `name` is not among them.
fn local_value(answer: &Answer, name: &str) -> Option<Option<String>> {
    match answer {
        Answer::State(state) => match &state.view {
            Some(StateView::Event {
                locals: Some(locals),
                ..
            }) => Some(
                locals
                    .iter()
                    .find(|(local, _)| *local == name)
                    .map(|(_, value)| value.clone()),
            ),
            _ => None,
        },
        _ => None,
    }
}

/// Writes the hover's first part, the predicted value (or why there is none);
/// `None` when the hover is dropped because the name is no local there.
fn predicted_section(
    view: &View,
    target: &HoverTarget,
    predicted: Option<&Answer>,
    real_known: bool,
    engine: Backend,
) -> Option<String> {
    let HoverTarget {
        name, stop_line, ..
    } = target;
    let symbol = if engine == Backend::Model { "≈" } else { "=" };
    let mut markdown = String::new();
    match predicted {
        None => {
            let _ = writeln!(
                markdown,
                "**{name}** {symbol} … *(predicting `{}`)*",
                target.entry.call
            );
        }
        Some(Answer::Failed(reason)) => {
            let _ = writeln!(
                markdown,
                "**{name}**: no prediction: {}",
                bounded(&reason.to_string(), MAX_REASON)
            );
        }
        Some(answer @ Answer::State(state)) => match local_value(answer, name) {
            Some(Some(value)) => {
                let _ = writeln!(markdown, "**{name}** {symbol} `{value}`\n");
                let _ = writeln!(
                    markdown,
                    "Confidence: {}",
                    confidence_text(state.confidence)
                );
            }
            Some(None) => {
                let function = target.function();
                let local = function.has_parameter(name)
                    || assigned_in(&view.document.text[function.range.clone()], name);
                if !local && !real_known {
                    // Not a local here (a global, a builtin, an attribute).
                    return None;
                }
                let _ = writeln!(
                    markdown,
                    "**{name}** is not bound when line {} is reached\n",
                    stop_line + 1
                );
                let _ = writeln!(
                    markdown,
                    "Confidence: {}",
                    confidence_text(state.confidence)
                );
            }
            None => {
                let _ = writeln!(markdown, "Line {} {}", stop_line + 1, locals_label(answer));
            }
        },
        Some(_) => return None,
    }
    Some(markdown)
}

/// Writes the hover's second part: the real run's value and whether the
/// prediction matched it, or that the run is still going.
fn real_section(
    target: &HoverTarget,
    predicted: Option<&Answer>,
    real: Option<&Answer>,
    real_asked: bool,
) -> String {
    let name = &target.name;
    let mut markdown = String::new();
    if let Some(real) = real {
        let predicted_value = predicted
            .and_then(|answer| local_value(answer, name))
            .flatten();
        match local_value(real, name) {
            Some(Some(value)) => {
                let verdict = match &predicted_value {
                    Some(predicted) if *predicted == value => "✓ the prediction was right",
                    Some(_) => "✗ the prediction was wrong",
                    None => "",
                };
                let _ = writeln!(markdown, "\nReal value (ran): `{value}` {verdict}");
            }
            Some(None) => {
                let _ = writeln!(markdown, "\nReal run: `{name}` is not bound there");
            }
            None => {
                let _ = writeln!(
                    markdown,
                    "\nReal run: line {} {}",
                    target.stop_line + 1,
                    locals_label(real)
                );
            }
        }
    } else if real_asked {
        let _ = writeln!(markdown, "\nReal value: running…");
    }
    markdown
}

/// A command as the server offers it: a lens, a code action or a picker.
#[derive(Clone, Debug, PartialEq)]
pub struct CommandData {
    pub title: String,
    pub command: Command,
}

/// The kinds of lenses above a function.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "camelCase")]
pub enum LensKind {
    EntryCall,
    Predict,
    SuggestInputs,
    CheckByRunning,
}

/// An unresolved lens: where, for which function, what.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Lens {
    pub line: usize,
    pub function: String,
    pub kind: LensKind,
}

/// Command names.
/// Lenses above every function that is not nested.
pub fn code_lenses(view: &View) -> Vec<Lens> {
    if !view.settings.code_lens.enable {
        return Vec::new();
    }
    let analysis = view.document.analysis();
    let mut lenses = Vec::new();
    for function in &analysis.functions {
        if function.kind == FunctionKind::Nested {
            continue;
        }
        let mut kinds = vec![LensKind::EntryCall, LensKind::Predict];
        if function.kind == FunctionKind::Function {
            kinds.push(LensKind::SuggestInputs);
        }
        if view.settings.allow_running_code {
            kinds.push(LensKind::CheckByRunning);
        }
        for kind in kinds {
            lenses.push(Lens {
                line: function.def_line,
                function: function.qualified_name.clone(),
                kind,
            });
        }
    }
    lenses
}

/// The command of a lens; `None` when its function is gone.
pub fn resolve_lens(view: &View, lens: &Lens, answers: &dyn Answers) -> Option<CommandData> {
    let analysis = view.document.analysis();
    let index = analysis
        .functions
        .iter()
        .position(|function| function.qualified_name == lens.function)?;
    let function = &analysis.functions[index];
    let calls = view.entry_calls(index);
    let argument = FunctionArgument::named(view.uri, &lens.function);
    let choose = || {
        Command::ChooseEntryCall(ChooseEntryCall {
            target: argument.clone(),
            entry_call: None,
        })
    };
    let active = calls.first();
    Some(match lens.kind {
        LensKind::EntryCall => match active {
            Some(entry) => CommandData {
                title: format!(
                    "ndb: {} ({}{})",
                    entry.call,
                    entry.origin.describe(),
                    more(calls.len())
                ),
                command: choose(),
            },
            None => CommandData {
                title: "ndb: no entry call (add `# ndb: f(...)` or suggest inputs)".into(),
                command: choose(),
            },
        },
        LensKind::Predict => {
            let title = match active {
                None => "Predict (needs an entry call)".to_string(),
                Some(entry) => match answers.cached(&view.output_key(&entry.call)).as_deref() {
                    Some(Answer::Output {
                        value,
                        raised,
                        state,
                    }) => {
                        let verb = if *raised { "raises" } else { "returns" };
                        let value = bounded(value.as_deref().unwrap_or("None"), 40);
                        match state.confidence {
                            Some(c) => format!(
                                "≈ {verb} {value} ({} {:.0}%)",
                                c.verdict().as_str(),
                                c.value() * 100.0
                            ),
                            // A real value is not marked as a prediction.
                            None => format!("(ran) {verb} {value}"),
                        }
                    }
                    _ => format!("Predict {}", bounded(&entry.call, 40)),
                },
            };
            CommandData {
                title,
                command: Command::Predict(argument),
            }
        }
        LensKind::SuggestInputs => CommandData {
            title: format!("Suggest inputs for {}", function.name),
            command: Command::SuggestInputs(SuggestInputs {
                target: argument,
                output: None,
                pick: None,
            }),
        },
        LensKind::CheckByRunning => CommandData {
            title: "Check by running".into(),
            command: Command::CheckByRunning(argument),
        },
    })
}

fn more(count: usize) -> String {
    if count > 1 {
        format!(", {} more", count - 1)
    } else {
        String::new()
    }
}

/// Code actions on a 0-based line: the breakpoint toggle, the function's
/// operations (for editors without code lenses), and the insertion of
/// suggestions already made. A one-line `selection` is offered as the output
/// to suggest inputs for (how a user "types an output" in an editor).
pub fn code_actions(
    view: &View,
    line: usize,
    selection: Option<&str>,
    answers: &dyn Answers,
) -> Vec<CommandData> {
    let mut actions = Vec::new();
    let has_breakpoint = view.breakpoints.contains(&line);
    actions.push(CommandData {
        title: if has_breakpoint {
            "Remove neural breakpoint".into()
        } else {
            "Neural breakpoint here".into()
        },
        command: Command::ToggleBreakpoint(LineArgument {
            uri: view.uri.to_string(),
            line: line as u32,
        }),
    });
    let analysis = view.document.analysis();
    let Some(index) = analysis.function_at_line(line) else {
        return actions;
    };
    let runnable = &analysis.functions[analysis.functions[index].runnable];
    let argument = FunctionArgument::named(view.uri, &runnable.qualified_name);
    let calls = view.entry_calls(index);
    if let Some(entry) = calls.first() {
        actions.push(CommandData {
            title: format!("ndb: predict {}", bounded(&entry.call, 50)),
            command: Command::Predict(argument.clone()),
        });
    }
    actions.push(CommandData {
        title: format!("ndb: choose the entry call of {}", runnable.name),
        command: Command::ChooseEntryCall(ChooseEntryCall {
            target: argument.clone(),
            entry_call: None,
        }),
    });
    if runnable.kind == FunctionKind::Function {
        actions.push(CommandData {
            title: format!("ndb: suggest inputs for {}", runnable.name),
            command: Command::SuggestInputs(SuggestInputs {
                target: argument.clone(),
                output: None,
                pick: None,
            }),
        });
        let output = selection
            .map(str::trim)
            .filter(|text| !text.is_empty() && !text.contains('\n') && text.chars().count() <= 200);
        if let Some(output) = output {
            actions.push(CommandData {
                title: format!(
                    "ndb: suggest inputs for {} that return {}",
                    runnable.name,
                    bounded(output, 40)
                ),
                command: Command::SuggestInputs(SuggestInputs {
                    target: argument.clone(),
                    output: Some(output.to_string()),
                    pick: None,
                }),
            });
        }
        if let Some(Answer::Suggestions(suggestions)) = answers
            .cached(&view.suggest_key(&runnable.name, None))
            .as_deref()
        {
            for suggestion in suggestions.iter().take(5) {
                for style in [
                    InsertStyle::Doctest,
                    InsertStyle::Pytest,
                    InsertStyle::Comment,
                ] {
                    actions.push(CommandData {
                        title: format!(
                            "ndb: insert {}({}) as {} ({})",
                            runnable.name,
                            bounded(&suggestion.input, 40),
                            style_name(style),
                            suggestion_marks(suggestion)
                        ),
                        command: Command::InsertSuggestion(InsertSuggestion {
                            target: argument.clone(),
                            input: suggestion.input.clone(),
                            output: None,
                            votes: None,
                            samples: None,
                            style: Some(style),
                        }),
                    });
                }
            }
        }
    }
    if view.settings.allow_running_code && !calls.is_empty() {
        actions.push(CommandData {
            title: format!("ndb: check {} by running", bounded(&calls[0].call, 50)),
            command: Command::CheckByRunning(argument),
        });
    }
    actions
}

fn style_name(style: InsertStyle) -> &'static str {
    match style {
        InsertStyle::Doctest => "doctest",
        InsertStyle::Pytest => "pytest test",
        InsertStyle::Comment => "# ndb: entry call",
    }
}

/// "5/8 agree, ✓ verified by running", "from edit of 'ab', ✗ refuted by
/// running", "1/8 agree, predicted to give it (0.62, likely), not run" and
/// the like.
pub fn suggestion_marks(suggestion: &Suggestion) -> String {
    let predicted = suggestion
        .model_check
        .as_ref()
        .filter(|_| suggestion.verified.is_none())
        .map(|check| format!(", {}", check.describe(30)))
        .unwrap_or_default();
    let verified = match suggestion.verified {
        Some(true) => ", ✓ verified by running".to_string(),
        Some(false) => ", ✗ refuted by running".to_string(),
        None => predicted,
    };
    if suggestion.samples > 0 {
        format!(
            "{}/{} agree{verified}",
            suggestion.votes, suggestion.samples
        )
    } else {
        format!("from {}{verified}", suggestion.origin.describe())
    }
}

//! `ndb eval`: CruxEval-format problems in, predictions out, and with
//! `--report` a score from running them. Also the no-model floors
//! (`--baseline`) every model number is reported beside.

use std::io::{BufRead, Write};

use anyhow::{Context, Result};
use clap::ValueEnum;
use indicatif::{ProgressBar, ProgressStyle};
use ndb_grammar::locate::find_function;
use ndb_inference::debugger::{Cancel, Debugger, TracerDebugger};
use ndb_inference::ops::{self, OutputMode};
use ndb_inference::python::function_spans;
use ndb_inference::suggest;
use serde_json::{json, Value};

#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum Task {
    /// Predict `f(input)`.
    Output,
    /// Propose an input that gives `output`.
    Input,
    /// Teacher-forced next states of a dataset's held-out records
    /// (`--data`), per action and component.
    #[value(name = "next-state")]
    NextState,
}

/// Answers without a model.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum Baseline {
    /// Output task: the output is the first argument.
    FirstArgument,
    /// Input task: every argument is the output.
    OutputAsInput,
    /// Input task: 8 fixed candidates, the first one a real run confirms
    /// (runs the problems' code).
    FixedCandidates,
}

/// Input task: where candidates come from (the ablation of `--verify`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum Sources {
    /// The model's samples only.
    Model,
    /// The search only (calls in the code, the output, literals, edits);
    /// no model is loaded. Needs --verify.
    Search,
    /// Both.
    Both,
}

impl Sources {
    pub fn uses_model(self) -> bool {
        self != Sources::Search
    }
}

pub struct Options {
    pub task: Task,
    pub mode: OutputMode,
    pub verify: bool,
    pub report: bool,
    pub baseline: Option<Baseline>,
    pub samples: usize,
    pub sources: Sources,
    /// Without --verify: the model's checks of candidates
    /// ([`suggest::Request::checks`]).
    pub checks: usize,
    pub budget: suggest::Budget,
}

/// What answering one problem cost.
#[derive(Default)]
struct Cost {
    runs: usize,
    seconds: f64,
    origin: Option<String>,
    confirmed: Option<bool>,
    /// The model's check of the answer: predicted to give the output.
    predicted: Option<bool>,
}

struct Problem {
    id: Value,
    code: String,
    input: Option<String>,
    output: Option<String>,
}

fn parse_problem(line: &str) -> Result<Problem> {
    let value: Value = serde_json::from_str(line).context("not JSON")?;
    let text = |key: &str| value.get(key).and_then(Value::as_str).map(str::to_string);
    Ok(Problem {
        id: value.get("id").cloned().unwrap_or(Value::Null),
        code: text("code").context("no \"code\" string")?,
        input: text("input"),
        output: text("output"),
    })
}

/// The function a problem is about: `f` when there is one, else the last
/// top-level function.
fn entry_function(code: &str) -> Option<String> {
    let spans = function_spans(code);
    find_function(&spans, "f")
        .map(|index| spans[index].name.clone())
        .or_else(|| {
            spans
                .iter()
                .rev()
                .find(|span| span.indent == 0)
                .map(|span| span.name.clone())
        })
}

/// The top-level pieces of an argument list, split at commas outside
/// brackets and strings.
fn split_arguments(text: &str) -> Vec<String> {
    let mut pieces = Vec::new();
    let mut depth = 0i32;
    let mut quote: Option<char> = None;
    let mut escaped = false;
    let mut current = String::new();
    for c in text.chars() {
        if let Some(q) = quote {
            current.push(c);
            if escaped {
                escaped = false;
            } else if c == '\\' {
                escaped = true;
            } else if c == q {
                quote = None;
            }
            continue;
        }
        match c {
            '\'' | '"' => quote = Some(c),
            '(' | '[' | '{' => depth += 1,
            ')' | ']' | '}' => depth -= 1,
            ',' if depth == 0 => {
                pieces.push(current.trim().to_string());
                current.clear();
                continue;
            }
            _ => {}
        }
        current.push(c);
    }
    if !current.trim().is_empty() {
        pieces.push(current.trim().to_string());
    }
    pieces
}

const FILLERS: [&str; 7] = ["''", "[]", "0", "{}", "1", "'a'", "()"];

fn repeated(value: &str, count: usize) -> String {
    vec![value; count.max(1)].join(", ")
}

fn predict(
    debugger: Option<&dyn Debugger>,
    tracer: &TracerDebugger,
    options: &Options,
    problem: &Problem,
    function: &str,
    cost: &mut Cost,
) -> Result<String> {
    let missing = |key: &str| anyhow::anyhow!("the problem has no \"{key}\"");
    let arity = ops::positional_parameter_count(&problem.code, function);
    match (options.task, options.baseline) {
        (Task::Output, Some(Baseline::FirstArgument)) => {
            let input = problem.input.as_deref().ok_or_else(|| missing("input"))?;
            Ok(split_arguments(input)
                .into_iter()
                .next()
                .unwrap_or_default())
        }
        (Task::Input, Some(Baseline::OutputAsInput)) => {
            let output = problem.output.as_deref().ok_or_else(|| missing("output"))?;
            Ok(repeated(output, arity))
        }
        (Task::Input, Some(Baseline::FixedCandidates)) => {
            let output = problem.output.as_deref().ok_or_else(|| missing("output"))?;
            let candidates: Vec<String> = std::iter::once(repeated(output, arity))
                .chain(FILLERS.iter().map(|filler| repeated(filler, arity)))
                .collect();
            Ok(candidates
                .iter()
                .find(|input| {
                    ops::verify_input(tracer, &problem.code, function, input, output) == Some(true)
                })
                .unwrap_or(&candidates[0])
                .clone())
        }
        (Task::NextState, _) => anyhow::bail!("next-state scores a dataset: see next_state.rs"),
        (task, Some(baseline)) => {
            anyhow::bail!("the {baseline:?} baseline does not answer the {task:?} task")
        }
        (Task::Output, None) => {
            let debugger = debugger.context("no model")?;
            let input = problem.input.as_deref().ok_or_else(|| missing("input"))?;
            let call = ops::entry_call(function, input);
            let prediction =
                ops::predict_output(debugger, &problem.code, &call, options.mode, &Cancel::new())?;
            Ok(prediction.value.unwrap_or_default())
        }
        (Task::Input, None) => {
            // The product's path: the one suggestion engine, its first
            // suggestion.
            let output = problem.output.as_deref().ok_or_else(|| missing("output"))?;
            let mut request = suggest::Request::new(function, Some(output));
            request.samples = if options.sources.uses_model() {
                options.samples
            } else {
                0
            };
            request.search = options.sources != Sources::Model;
            request.budget = options.budget;
            request.checks = options.checks;
            request.confirmations = 1;
            let report = suggest::suggest(
                debugger.filter(|_| options.sources.uses_model()),
                options.verify.then_some(tracer),
                &problem.code,
                &request,
                &Cancel::new(),
            )?;
            cost.runs = report.runs;
            cost.seconds = report.elapsed.as_secs_f64();
            let first = report.suggestions.first();
            cost.origin = first.map(|s| s.origin.kind().to_string());
            cost.confirmed = first.and_then(|s| s.verified);
            cost.predicted = first.and_then(|s| s.model_check.as_ref().map(|c| c.gives_output));
            Ok(first.map(|s| s.input.clone()).unwrap_or_default())
        }
    }
}

fn score(
    tracer: &TracerDebugger,
    task: Task,
    problem: &Problem,
    function: &str,
    prediction: &str,
) -> bool {
    match task {
        Task::Output => problem.input.as_deref().is_some_and(|input| {
            ops::verify_output(
                tracer,
                &problem.code,
                &ops::entry_call(function, input),
                prediction,
            ) == Some(true)
        }),
        Task::Input => problem.output.as_deref().is_some_and(|output| {
            ops::verify_input(tracer, &problem.code, function, prediction, output) == Some(true)
        }),
        Task::NextState => false,
    }
}

/// Answers every problem on `input`, one output line each.
pub fn run(
    debugger: Option<&dyn Debugger>,
    tracer: &TracerDebugger,
    options: &Options,
    input: impl BufRead,
    out: &mut impl Write,
) -> Result<()> {
    if options.verify && options.task == Task::Output {
        anyhow::bail!("--verify checks suggested inputs: use it with --task input");
    }
    if options.task == Task::Input && options.sources == Sources::Search && !options.verify {
        anyhow::bail!(
            "--sources search needs --verify: the search confirms candidates by running them"
        );
    }
    let lines: Vec<String> = input
        .lines()
        .collect::<std::io::Result<Vec<_>>>()?
        .into_iter()
        .filter(|line| !line.trim().is_empty())
        .collect();
    let progress = ProgressBar::new(lines.len() as u64);
    progress.set_style(
        ProgressStyle::with_template("{bar:30} {pos}/{len} {msg} [{elapsed_precise}, eta {eta}]")
            .unwrap_or_else(|_| ProgressStyle::default_bar()),
    );
    let (mut correct, mut failed) = (0usize, 0usize);
    let (mut total_runs, mut total_seconds, mut slowest) = (0usize, 0.0f64, 0.0f64);
    let mut most_runs = 0usize;
    for (index, line) in lines.iter().enumerate() {
        let problem = match parse_problem(line) {
            Ok(problem) => problem,
            Err(error) => {
                progress.suspend(|| eprintln!("ndb: line {}: {error:#}", index + 1));
                failed += 1;
                progress.inc(1);
                continue;
            }
        };
        let function = entry_function(&problem.code);
        let mut cost = Cost::default();
        let result = match &function {
            Some(function) => predict(debugger, tracer, options, &problem, function, &mut cost),
            None => Err(anyhow::anyhow!("no function in the code")),
        };
        let mut object = json!({"id": problem.id});
        if options.task == Task::Input && options.baseline.is_none() {
            object["runs"] = json!(cost.runs);
            object["seconds"] = json!((cost.seconds * 1000.0).round() / 1000.0);
            object["origin"] = json!(cost.origin);
            object["confirmed"] = json!(cost.confirmed);
            object["predicted_to_give_output"] = json!(cost.predicted);
            total_runs += cost.runs;
            total_seconds += cost.seconds;
            slowest = slowest.max(cost.seconds);
            most_runs = most_runs.max(cost.runs);
        }
        match &result {
            Ok(prediction) => object["prediction"] = json!(prediction),
            Err(error) => {
                failed += 1;
                object["prediction"] = json!("");
                object["error"] = json!(error.to_string());
            }
        }
        if options.report {
            let right = match (&result, &function) {
                (Ok(prediction), Some(function)) => {
                    score(tracer, options.task, &problem, function, prediction)
                }
                _ => false,
            };
            correct += usize::from(right);
            object["correct"] = json!(right);
            progress.set_message(format!("pass@1 {correct}/{}", index + 1));
        }
        writeln!(out, "{object}")?;
        out.flush()?;
        progress.inc(1);
    }
    progress.finish_and_clear();
    let total = lines.len();
    if options.report {
        let share = if total == 0 {
            0.0
        } else {
            100.0 * correct as f64 / total as f64
        };
        eprintln!(
            "pass@1: {correct}/{total} = {share:.1}% (task {:?}, {}{}; {failed} without an answer)",
            options.task,
            match options.baseline {
                Some(baseline) => format!("baseline {baseline:?}"),
                None => format!(
                    "model {}, mode {}",
                    debugger.map(|d| d.name()).unwrap_or_default(),
                    options.mode.name()
                ),
            },
            if options.verify { ", verified" } else { "" },
        );
        // --report scores by running each problem's code (and --verify
        // runs candidates): say how those runs were confined.
        eprintln!(
            "runs of the problems' code: {}",
            ndb_inference::tracer::SandboxReport::current().summary()
        );
        if options.task == Task::Input && options.baseline.is_none() && total > 0 {
            eprintln!(
                "runs per problem: {:.1} mean, {most_runs} most; seconds per problem: {:.2} mean, {slowest:.2} most (sources {:?}, budget {} runs, {:.0} s)",
                total_runs as f64 / total as f64,
                total_seconds / total as f64,
                options.sources,
                options.budget.runs,
                options.budget.time.as_secs_f64(),
            );
        }
    } else if failed > 0 {
        eprintln!("ndb: {failed} of {total} problems got no answer");
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn arguments_split_at_top_level_commas_only() {
        assert_eq!(
            split_arguments("(1, ), 'a,b', {'k': [1, 2]}, \"x\\\"y\""),
            ["(1, )", "'a,b'", "{'k': [1, 2]}", "\"x\\\"y\""]
        );
        assert!(split_arguments("").is_empty());
    }

    #[test]
    fn the_entry_function_is_f_or_the_last_top_level_one() {
        assert_eq!(
            entry_function("def g(x):\n    return x\ndef f(y):\n    return g(y)\n").as_deref(),
            Some("f")
        );
        assert_eq!(
            entry_function("def g(x):\n    return x\ndef h(y):\n    return y\n").as_deref(),
            Some("h")
        );
        assert_eq!(entry_function("x = 1\n"), None);
    }
}

//! `ndb eval --task next-state`: teacher-forced next-state accuracy on the
//! held-out records of a dataset written by `ndb data generate`, asked
//! through the product's own path (the text language's prompt, the state
//! grammar, mistral.rs, the vote), scored per action and per component
//! (event, line, locals, value) like `inference/training/evaluate.py`.
//!
//! Each held-out record is a real trajectory. For every state in it, the
//! model reads the real trajectory up to that state's action and writes
//! the state; the answer is exact when it is the recorded state. Records
//! are read in the order evaluate.py reads them (the held-out shards by
//! name, lines in order), the first `records` of them, and a record stops
//! at the first state that does not fit `max_record_tokens` tokens, as
//! training cut it.

use std::collections::BTreeMap;
use std::io::{BufRead, BufReader, Write};
use std::path::{Path, PathBuf};

use anyhow::{bail, Context, Result};
use indicatif::{ProgressBar, ProgressStyle};
use ndb_grammar::text::{normalize_state, parse_trajectory, print_state};
use ndb_grammar::{TextEvent, TextState, TextTrajectory};
use ndb_inference::debugger::Cancel;
use ndb_inference::neural::NeuralDebugger;
use serde_json::{json, Value};

pub struct Options {
    pub data: PathBuf,
    pub records: usize,
    pub max_record_tokens: usize,
    pub samples: usize,
    /// Where to write the summary as JSON (evaluate.py's shape).
    pub summary: Option<PathBuf>,
}

/// The components of a state a prediction can get right on its own.
const COMPONENTS: [&str; 4] = ["event", "line", "locals", "value"];

/// Exact match and component scores of one group of states.
#[derive(Default)]
struct Scores {
    states: usize,
    exact: usize,
    components: BTreeMap<&'static str, (usize, usize)>,
}

impl Scores {
    fn add(&mut self, exact: bool, components: &[(&'static str, bool)]) {
        self.states += 1;
        self.exact += usize::from(exact);
        for &(name, right) in components {
            let entry = self.components.entry(name).or_default();
            entry.0 += 1;
            entry.1 += usize::from(right);
        }
    }

    fn to_json(&self) -> Value {
        let share = |right: usize, seen: usize| {
            ((right as f64 / seen.max(1) as f64) * 10_000.0).round() / 10_000.0
        };
        let mut object = json!({
            "states": self.states,
            "exact_match": share(self.exact, self.states),
        });
        for name in COMPONENTS {
            if let Some(&(seen, right)) = self.components.get(name) {
                object[name] = json!(share(right, seen));
            }
        }
        object
    }
}

/// Whether `event` carries locals (else a value, or nothing).
fn has_locals(event: TextEvent) -> bool {
    matches!(
        event,
        TextEvent::Call | TextEvent::Line | TextEvent::LineCall
    )
}

/// The component scores of `predicted` against the recorded `truth`.
fn components(predicted: Option<&TextState>, truth: &TextState) -> Vec<(&'static str, bool)> {
    let event = predicted.is_some_and(|p| p.event == truth.event && p.inverse == truth.inverse);
    let mut out = vec![("event", event)];
    if !matches!(
        truth.event,
        TextEvent::ExitNormal | TextEvent::ExitError | TextEvent::ExitNever | TextEvent::ExitEntry
    ) {
        out.push(("line", predicted.is_some_and(|p| p.src == truth.src)));
    }
    if has_locals(truth.event) {
        out.push((
            "locals",
            event && predicted.is_some_and(|p| p.locals == truth.locals),
        ));
    } else if truth.value.is_some() {
        out.push((
            "value",
            event && predicted.is_some_and(|p| p.value == truth.value),
        ));
    }
    out
}

/// The held-out shards of `data`, in evaluate.py's order.
fn heldout_shards(data: &Path) -> Result<Vec<PathBuf>> {
    let mut shards: Vec<PathBuf> = std::fs::read_dir(data)
        .with_context(|| format!("cannot read the dataset folder {}", data.display()))?
        .filter_map(|entry| entry.ok().map(|entry| entry.path()))
        .filter(|path| {
            path.file_name()
                .and_then(|name| name.to_str())
                .is_some_and(|name| name.starts_with("heldout-") && name.ends_with(".jsonl.gz"))
        })
        .collect();
    shards.sort();
    if shards.is_empty() {
        bail!(
            "no held-out shards (heldout-*.jsonl.gz) in {} (write them with `ndb data generate --out {}`)",
            data.display(),
            data.display()
        );
    }
    Ok(shards)
}

fn read_records(data: &Path, limit: usize) -> Result<Vec<Value>> {
    let mut records = Vec::new();
    for shard in heldout_shards(data)? {
        let file = std::fs::File::open(&shard)
            .with_context(|| format!("cannot open {}", shard.display()))?;
        for line in BufReader::new(flate2::read::GzDecoder::new(file)).lines() {
            if records.len() >= limit {
                return Ok(records);
            }
            let line = line.with_context(|| format!("cannot read {}", shard.display()))?;
            let record: Value = serde_json::from_str(&line)
                .with_context(|| format!("{}: a record is not JSON", shard.display()))?;
            records.push(record);
        }
    }
    Ok(records)
}

/// `generated` for programs.py's programs, `real` for real code.
fn corpus_of(record: &Value) -> &'static str {
    if record["program"].as_str().unwrap_or("").starts_with("gen-") {
        "generated"
    } else {
        "real"
    }
}

/// Scores the held-out records; one JSON line per state on `out`, the
/// table on stderr, and the summary (also returned) where asked.
pub fn run(model: &NeuralDebugger, options: &Options, out: &mut impl Write) -> Result<Value> {
    let records = read_records(&options.data, options.records)?;
    let progress = ProgressBar::new(records.len() as u64);
    progress.set_style(
        ProgressStyle::with_template(
            "{bar:30} {pos}/{len} records {msg} [{elapsed_precise}, eta {eta}]",
        )
        .unwrap_or_else(|_| ProgressStyle::default_bar()),
    );
    let mut totals: BTreeMap<String, Scores> = BTreeMap::new();
    let cancel = Cancel::new();
    let (mut unreadable, mut failed) = (0usize, 0usize);
    let mut reliability: Vec<(f64, bool)> = Vec::new();
    for (index, record) in records.iter().enumerate() {
        progress.inc(1);
        let Some(pieces) = record["pieces"].as_array() else {
            unreadable += 1;
            continue;
        };
        let texts: Vec<&str> = pieces.iter().map(|p| p[0].as_str().unwrap_or("")).collect();
        let (trajectory, errors) = parse_trajectory(&texts.concat());
        let tags: Vec<&str> = pieces.iter().filter_map(|p| p[1].as_str()).collect();
        if !errors.is_empty() || tags.len() != trajectory.steps.len() {
            unreadable += 1;
            continue;
        }
        let entry = record["entry"] == true;
        let mut prefix = String::new();
        let mut step = 0;
        for (piece, text) in pieces.iter().zip(&texts) {
            prefix.push_str(text);
            if piece[1].is_null() {
                continue;
            }
            // As training cut records: a state that does not fit ends it.
            if model.count_tokens(&prefix)? > options.max_record_tokens {
                break;
            }
            let truth = normalize_state(&trajectory.steps[step].state);
            let so_far = TextTrajectory {
                source: trajectory.source.clone(),
                start: trajectory.start.clone(),
                steps: trajectory.steps[..step].to_vec(),
                ended: false,
            };
            let action = &trajectory.steps[step].action;
            // The record's entry call, when the trajectory starts at it:
            // the product asks some of these jumps as assertions.
            let entry_call = record["call"].as_str().filter(|_| entry);
            let answer =
                model.answer_recorded(&so_far, action, entry_call, options.samples, &cancel);
            let predicted = match &answer {
                Ok(candidates) => candidates.first().map(|(state, _)| normalize_state(state)),
                Err(_) => {
                    failed += 1;
                    None
                }
            };
            let confidence = answer
                .as_ref()
                .ok()
                .and_then(|candidates| candidates.first())
                .map(|(_, confidence)| confidence.value());
            let exact = predicted.as_ref() == Some(&truth);
            let scored = components(predicted.as_ref(), &truth);
            let name = action.name();
            let mut keys = vec![
                name.to_string(),
                "all".to_string(),
                format!("{}:all", corpus_of(record)),
            ];
            if entry && step == 0 {
                keys.push(format!("entry:{name}"));
            }
            for key in keys {
                totals.entry(key).or_default().add(exact, &scored);
            }
            let mut line = json!({
                "record": index,
                "program": record["program"],
                "step": step,
                "action": name,
                "entry": entry && step == 0,
                "exact": exact,
            });
            for (component, right) in &scored {
                line[*component] = json!(right);
            }
            line["confidence"] = json!(confidence.map(|c| (c * 10_000.0).round() / 10_000.0));
            reliability.push((confidence.unwrap_or(0.0), exact));
            if let Err(error) = &answer {
                line["error"] = json!(error.to_string());
            }
            // A wrong answer is shown beside the recorded state, as the
            // text language writes them (full locals, no deltas).
            if !exact {
                if let Some(predicted) = &predicted {
                    line["predicted"] = json!(print_state(predicted, None));
                }
                line["truth"] = json!(print_state(&truth, None));
            }
            writeln!(out, "{line}")?;
            out.flush()?;
            step += 1;
        }
        let all = totals
            .get("all")
            .map_or(0.0, |s| s.exact as f64 / s.states.max(1) as f64);
        progress.set_message(format!("exact {all:.3}"));
    }
    progress.finish_and_clear();
    let summary: serde_json::Map<String, Value> = totals
        .iter()
        .map(|(key, scores)| (key.clone(), scores.to_json()))
        .collect();
    let mut summary = Value::Object(summary);
    eprintln!("{}", format_table(&summary));
    let table = reliability_table(&mut reliability, 5);
    eprintln!("{}", format_reliability(&table));
    summary["reliability"] = table;
    if unreadable > 0 || failed > 0 {
        eprintln!(
            "ndb eval: {unreadable} record(s) could not be read, {failed} answer(s) failed (cut off or malformed; counted wrong)"
        );
    }
    if let Some(path) = &options.summary {
        std::fs::write(path, serde_json::to_string_pretty(&summary)? + "\n")
            .with_context(|| format!("cannot write {}", path.display()))?;
    }
    Ok(summary)
}

/// Confidence against exactness: the states sorted by confidence and cut
/// into `bins` groups of (nearly) equal size, each with its confidence range
/// and how often it was right. A confidence that means something has the
/// top group right far more often than the bottom one.
fn reliability_table(states: &mut [(f64, bool)], bins: usize) -> Value {
    states.sort_by(|a, b| a.0.total_cmp(&b.0));
    let mut rows = Vec::new();
    let n = states.len();
    for bin in 0..bins {
        let (start, end) = (n * bin / bins, n * (bin + 1) / bins);
        if start == end {
            continue;
        }
        let group = &states[start..end];
        let right = group.iter().filter(|(_, exact)| *exact).count();
        let round = |x: f64| (x * 10_000.0).round() / 10_000.0;
        rows.push(json!({
            "from": round(group[0].0),
            "to": round(group[group.len() - 1].0),
            "states": group.len(),
            "exact_match": round(right as f64 / group.len() as f64),
        }));
    }
    Value::Array(rows)
}

fn format_reliability(table: &Value) -> String {
    let mut lines = vec!["confidence        states  exact".to_string()];
    for row in table.as_array().into_iter().flatten() {
        lines.push(format!(
            "{:.3} .. {:.3}  {:>6}  {:.3}",
            row["from"].as_f64().unwrap_or(0.0),
            row["to"].as_f64().unwrap_or(0.0),
            row["states"],
            row["exact_match"].as_f64().unwrap_or(0.0)
        ));
    }
    lines.join("\n")
}

/// The rows evaluate.py prints, in its order.
const ROWS: [&str; 16] = [
    "step_into",
    "step_over",
    "step_return",
    "breakpoint",
    "continue",
    "inv_step_into",
    "inv_step_over",
    "inv_step_call",
    "entry:step_into",
    "entry:step_over",
    "entry:step_return",
    "entry:breakpoint",
    "entry:continue",
    "generated:all",
    "real:all",
    "all",
];

fn format_table(summary: &Value) -> String {
    let mut lines = vec![format!(
        "{:<18} {:>6} {:>6} {:>6} {:>6} {:>6} {:>6}",
        "action", "states", "exact", "event", "line", "locals", "value"
    )];
    for key in ROWS {
        let Some(entry) = summary.get(key) else {
            continue;
        };
        let cell = |name: &str| {
            entry
                .get(name)
                .and_then(Value::as_f64)
                .map_or("     -".to_string(), |share| format!("{share:6.3}"))
        };
        lines.push(format!(
            "{key:<18} {:>6} {} {} {} {} {}",
            entry["states"],
            cell("exact_match"),
            cell("event"),
            cell("line"),
            cell("locals"),
            cell("value"),
        ));
    }
    lines.join("\n")
}

#[cfg(test)]
mod tests {
    use super::*;
    use ndb_grammar::text::parse_state;

    fn state(text: &str) -> TextState {
        parse_state(text, None).0.unwrap()
    }

    #[test]
    fn components_are_scored_on_what_the_recorded_state_carries() {
        let truth = state("<|line_sep|><|arg_sep|>{\"x\": \"3\"}<|src_sep|>    y = x + 1");
        let wrong_locals = state("<|line_sep|><|arg_sep|>{\"x\": \"4\"}<|src_sep|>    y = x + 1");
        assert_eq!(
            components(Some(&wrong_locals), &truth),
            [("event", true), ("line", true), ("locals", false)]
        );
        let returned = state("<|return_sep|><|src_sep|>    return y<|arg_sep|>\"8\"");
        assert_eq!(
            components(Some(&returned), &returned),
            [("event", true), ("line", true), ("value", true)]
        );
        // No answer gets every component wrong.
        assert!(components(None, &returned).iter().all(|(_, right)| !right));
    }

    #[test]
    fn the_reliability_table_cuts_states_by_confidence() {
        let mut states: Vec<(f64, bool)> = (0..10).map(|i| (i as f64 / 10.0, i >= 6)).collect();
        let table = reliability_table(&mut states, 5);
        let rows = table.as_array().unwrap();
        assert_eq!(rows.len(), 5);
        assert_eq!(
            rows[0],
            json!({"from": 0.0, "to": 0.1, "states": 2, "exact_match": 0.0})
        );
        assert_eq!(rows[3]["exact_match"], json!(1.0));
        assert_eq!(rows[4]["to"], json!(0.9));
        assert_eq!(reliability_table(&mut [], 5), json!([]));
    }

    #[test]
    fn scores_serialise_as_evaluate_py_does() {
        let mut scores = Scores::default();
        scores.add(true, &[("event", true), ("locals", true)]);
        scores.add(false, &[("event", true), ("value", false)]);
        scores.add(false, &[("event", false)]);
        assert_eq!(
            scores.to_json(),
            json!({"states": 3, "exact_match": 0.3333, "event": 0.6667, "locals": 1.0, "value": 0.0})
        );
    }
}

//! Training data: programs run under the real tracer, their state trees
//! sampled with the design reference's random policy (plus the two
//! trajectories users ask for most: the entry call's `step_return` and the
//! return's `inv_step_call`), written as sharded, gzip-compressed JSON lines.
//!
//! A record is one trajectory cut into pieces (see
//! [`ndb_grammar::text::print_trajectory_pieces`]):
//!
//! ```json
//! {"program": "gen-1-000007", "call": "f([1, 2])", "direction": "forward",
//!  "entry": true,
//!  "pieces": [["<|trace_context_start|>def f(...", null],
//!             ["<|line_sep|>...", "step_over"], ...]}
//! ```
//!
//! Each state piece names the action that reached it: training puts its
//! loss there, and evaluation scores it per action. `entry` marks forward
//! trajectories that start at the entry call (their first state is what
//! `ndb predict` is asked most; evaluation scores it on its own). Programs are split
//! into `train` and `heldout` by a hash of their id, so no held-out program
//! is ever trained on. The output is the same, byte for byte, for the same
//! programs, seed and settings, whatever the number of workers.
//!
//! Programs that do not load, hang, run past a limit, or kill their
//! interpreter are dropped and counted by reason; they never stall the run
//! (every trace is a bounded child process).

use std::collections::BTreeMap;
use std::fs::File;
use std::io::{self, BufRead, BufReader, BufWriter, Write};
use std::ops::Range;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::mpsc;
use std::time::Instant;

use flate2::read::GzDecoder;
use flate2::write::GzEncoder;
use flate2::Compression;
use ndb_grammar::sampler::{self, SamplerConfig, SplitMix64, Walk};
use ndb_grammar::text::print_trajectory_pieces;
use ndb_grammar::{Action, Cursor, EventKind, ExitStatus, StateTree};
use serde_json::{json, Value};

use crate::tracer::{self, TracerConfig, TracerError};

/// One program of a corpus: `{"id", "source", "calls", "family"?}`, as
/// `inference/training/programs.py` writes it.
#[derive(Clone, Debug, PartialEq, Eq, serde::Deserialize)]
pub struct Program {
    pub id: String,
    pub source: String,
    pub calls: Vec<String>,
    #[serde(default)]
    pub family: Option<String>,
}

impl Program {
    /// Reads one JSON line of a corpus (`id`, `source`, `calls`, and
    /// optionally `family`; other fields are ignored).
    pub fn from_json(line: &str) -> Result<Program, serde_json::Error> {
        serde_json::from_str(line)
    }
}

/// How a dataset is made.
#[derive(Clone, Debug)]
pub struct DataConfig {
    pub seed: u64,
    pub workers: usize,
    /// Random-policy forward trajectories per traced call.
    pub forward: usize,
    /// Random-policy inverse trajectories per traced call.
    pub inverse: usize,
    /// Also write the entry call's `step_return` and the entry return's
    /// `inv_step_call` for every traced call.
    pub task_shaped: bool,
    /// Share of programs held out (by a hash of the id and the seed).
    pub heldout_share: f64,
    /// Records per shard file.
    pub shard_records: usize,
    /// A record longer than this (in bytes of text) is dropped.
    pub max_record_bytes: usize,
    pub sampler: SamplerConfig,
    pub tracer: TracerConfig,
    /// This machine's part of a run split across machines (`None`: all).
    pub shard: Option<Shard>,
}

/// Why a `--shard` was refused.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum ShardError {
    #[error("a shard is I/N with two numbers (like 0/4), not {0:?}")]
    Malformed(String),
    #[error("shard {index}/{count}: the index must be below the count (0/{count} to {last}/{count})", last = count.max(&1) - 1)]
    OutOfRange { index: usize, count: usize },
}

/// Part `index` of `count` of a run split across machines (a cluster job
/// array): a contiguous range of the programs, traced with the seeds the
/// whole run would use, so that [`merge`] of the parts in order writes
/// exactly what one machine would have written.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Shard {
    pub index: usize,
    pub count: usize,
}

impl Shard {
    /// Reads `I/N` (0 <= I < N).
    pub fn parse(text: &str) -> Result<Shard, ShardError> {
        let malformed = || ShardError::Malformed(text.to_string());
        let (index, count) = text.split_once('/').ok_or_else(malformed)?;
        let index: usize = index.trim().parse().map_err(|_| malformed())?;
        let count: usize = count.trim().parse().map_err(|_| malformed())?;
        if count == 0 || index >= count {
            return Err(ShardError::OutOfRange { index, count });
        }
        Ok(Shard { index, count })
    }

    /// The programs (indices into the whole run's list) this part traces.
    pub fn range(self, programs: usize) -> Range<usize> {
        programs * self.index / self.count..programs * (self.index + 1) / self.count
    }
}

impl Default for DataConfig {
    fn default() -> Self {
        DataConfig {
            seed: 0,
            workers: 2,
            forward: 2,
            inverse: 2,
            task_shaped: true,
            heldout_share: 0.05,
            shard_records: 20_000,
            max_record_bytes: 6_000,
            sampler: SamplerConfig::default(),
            tracer: TracerConfig {
                max_events: 2_000,
                time_limit: std::time::Duration::from_secs(5),
                memory_limit_bytes: 512 << 20,
                max_stdout_bytes: 4 * 1024,
                max_protocol_bytes: 8 << 20,
                max_repr_chars: 120,
                max_items: 20,
                ..TracerConfig::default()
            },
            shard: None,
        }
    }
}

/// What a generation run did, written to `manifest.json` beside the shards.
#[derive(Clone, Debug, Default)]
pub struct DataReport {
    pub programs: usize,
    pub calls: usize,
    pub traced: usize,
    /// Calls dropped, by reason (`syntax`, `load`, `entry_call`, `limit`,
    /// `died`, `no_events`, `protocol`, `too_long`, ...).
    pub dropped: BTreeMap<String, usize>,
    pub records: BTreeMap<String, usize>,
    /// Predicted states (training targets) per split and action.
    pub targets: BTreeMap<String, BTreeMap<String, usize>>,
    /// The first action of trajectories that start at the entry call, per
    /// split: what the model is asked most, so it is kept balanced.
    pub entry_targets: BTreeMap<String, BTreeMap<String, usize>>,
    pub text_bytes: usize,
    pub seconds: f64,
    pub shards: Vec<String>,
}

impl DataReport {
    /// Adds a part's report (its `to_json`) to this one; `shards` is left
    /// to the writer.
    fn add_json(&mut self, part: &Value) {
        let number = |key: &str| part.get(key).and_then(Value::as_u64).unwrap_or(0) as usize;
        self.programs += number("programs");
        self.calls += number("calls");
        self.traced += number("traced");
        self.text_bytes += number("text_bytes");
        self.seconds += part.get("seconds").and_then(Value::as_f64).unwrap_or(0.0);
        let add = |into: &mut BTreeMap<String, usize>, from: Option<&Value>| {
            for (key, value) in from.and_then(Value::as_object).into_iter().flatten() {
                *into.entry(key.clone()).or_default() += value.as_u64().unwrap_or(0) as usize;
            }
        };
        add(&mut self.dropped, part.get("dropped"));
        add(&mut self.records, part.get("records"));
        for (field, into) in [
            ("targets", &mut self.targets),
            ("entry_targets", &mut self.entry_targets),
        ] {
            for (split, counts) in part
                .get(field)
                .and_then(Value::as_object)
                .into_iter()
                .flatten()
            {
                add(into.entry(split.clone()).or_default(), Some(counts));
            }
        }
    }

    pub fn to_json(&self) -> Value {
        json!({
            "programs": self.programs,
            "calls": self.calls,
            "traced": self.traced,
            "dropped": self.dropped,
            "records": self.records,
            "targets": self.targets,
            "entry_targets": self.entry_targets,
            "text_bytes": self.text_bytes,
            "seconds": (self.seconds * 10.0).round() / 10.0,
            "shards": self.shards,
        })
    }
}

#[derive(Debug, thiserror::Error)]
pub enum DataError {
    #[error("cannot write the dataset in {path}: {source}")]
    Write { path: PathBuf, source: io::Error },
    #[error("the tracer cannot run: {0}")]
    Tracer(String),
    #[error("cannot read {path}: {source}")]
    Read { path: PathBuf, source: io::Error },
    #[error("cannot merge: {0}")]
    Merge(String),
}

/// The split a program belongs to.
pub fn split_of(program_id: &str, seed: u64, heldout_share: f64) -> &'static str {
    // FNV-1a of the id, mixed with the seed through SplitMix64.
    let mut hash: u64 = 0xcbf2_9ce4_8422_2325;
    for byte in program_id.bytes() {
        hash ^= u64::from(byte);
        hash = hash.wrapping_mul(0x0000_0100_0000_01b3);
    }
    let draw = SplitMix64::new(hash ^ seed).next_f64();
    if draw < heldout_share {
        "heldout"
    } else {
        "train"
    }
}

/// Everything one program gave: its records and its drops.
struct ProgramOutput {
    split: &'static str,
    records: Vec<String>,
    targets: Vec<String>,
    entry_targets: Vec<&'static str>,
    traced: usize,
    dropped: Vec<&'static str>,
}

/// Traces `programs` and writes the dataset into `out` (created if
/// missing): `train-NNNNN.jsonl.gz`, `heldout-NNNNN.jsonl.gz` and
/// `manifest.json`. `progress` is called with the number of programs done.
pub fn generate(
    programs: &[Program],
    out: &Path,
    config: &DataConfig,
    progress: &(dyn Fn(usize) + Sync),
) -> Result<DataReport, DataError> {
    let started = Instant::now();
    std::fs::create_dir_all(out).map_err(|source| DataError::Write {
        path: out.to_path_buf(),
        source,
    })?;
    check_tracer(&config.tracer)?;
    let range = config
        .shard
        .map_or(0..programs.len(), |shard| shard.range(programs.len()));
    let next = AtomicUsize::new(range.start);
    let done = AtomicUsize::new(0);
    let (sender, receiver) = mpsc::sync_channel::<(usize, ProgramOutput)>(256);
    let mut writer = ShardWriter::new(out, config.shard_records);
    let mut report = DataReport {
        programs: range.len(),
        ..DataReport::default()
    };
    let written: Result<(), DataError> = std::thread::scope(|scope| {
        for _ in 0..config.workers.max(1) {
            let sender = sender.clone();
            let (next, done) = (&next, &done);
            scope.spawn(move || loop {
                let index = next.fetch_add(1, Ordering::Relaxed);
                if index >= range.end {
                    break;
                }
                let program = &programs[index];
                let output = program_output(program, index, config);
                progress(done.fetch_add(1, Ordering::Relaxed) + 1);
                if sender.send((index, output)).is_err() {
                    break;
                }
            });
        }
        drop(sender);
        // Written in program order whatever order the workers finish in.
        let mut waiting = BTreeMap::new();
        let mut expected = range.start;
        for (index, output) in receiver {
            waiting.insert(index, output);
            while let Some(output) = waiting.remove(&expected) {
                expected += 1;
                report.calls += output.traced + output.dropped.len();
                report.traced += output.traced;
                for reason in output.dropped {
                    *report.dropped.entry(reason.to_string()).or_default() += 1;
                }
                let targets = report.targets.entry(output.split.to_string()).or_default();
                for action in output.targets {
                    *targets.entry(action).or_default() += 1;
                }
                let entry_targets = report
                    .entry_targets
                    .entry(output.split.to_string())
                    .or_default();
                for action in output.entry_targets {
                    *entry_targets.entry(action.to_string()).or_default() += 1;
                }
                for record in output.records {
                    report.text_bytes += record.len();
                    *report.records.entry(output.split.to_string()).or_default() += 1;
                    writer.write(output.split, &record)?;
                }
            }
        }
        Ok(())
    });
    written?;
    report.shards = writer.finish()?;
    report.seconds = started.elapsed().as_secs_f64();
    let mut settings = json!({
        "format": FORMAT,
        "seed": config.seed,
        "forward_per_call": config.forward,
        "inverse_per_call": config.inverse,
        "task_shaped": config.task_shaped,
        "heldout_share": config.heldout_share,
        "max_steps": config.sampler.max_steps,
        "max_record_bytes": config.max_record_bytes,
        "shard_records": config.shard_records,
    });
    if let Some(shard) = config.shard {
        settings["shard"] = json!({
            "index": shard.index,
            "count": shard.count,
            "programs_in_run": programs.len(),
        });
    }
    write_manifest(out, settings, &report)?;
    Ok(report)
}

const FORMAT: &str = "ndb-trajectories/1";

fn write_manifest(out: &Path, mut settings: Value, report: &DataReport) -> Result<(), DataError> {
    settings["report"] = report.to_json();
    let path = out.join("manifest.json");
    let text = serde_json::to_string_pretty(&settings).expect("a manifest serialises") + "\n";
    std::fs::write(&path, text).map_err(|source| DataError::Write { path, source })
}

/// Joins the parts of a run split with [`Shard`]s (`ndb data generate
/// --shard I/N`, one folder each) into `out`: the same shards, byte for
/// byte, and the same manifest as one machine's run, except `seconds`,
/// which adds up the parts' times. Refuses parts made with other settings,
/// a missing or repeated part, or a folder that is not a part.
pub fn merge(parts: &[PathBuf], out: &Path) -> Result<DataReport, DataError> {
    let mut read = Vec::new();
    for part in parts {
        let path = part.join("manifest.json");
        let text = std::fs::read_to_string(&path).map_err(|source| DataError::Read {
            path: path.clone(),
            source,
        })?;
        let manifest: Value = serde_json::from_str(&text)
            .map_err(|error| DataError::Merge(format!("{}: {error}", path.display())))?;
        let shard = manifest
            .get("shard")
            .and_then(|shard| Some((shard.get("index")?.as_u64()?, shard.get("count")?.as_u64()?)))
            .ok_or_else(|| {
                DataError::Merge(format!(
                    "{} is not part of a split run (no \"shard\"; made without --shard I/N)",
                    part.display()
                ))
            })?;
        read.push((shard, part.clone(), manifest));
    }
    read.sort_by_key(|(shard, _, _)| *shard);
    let count = read.first().map_or(0, |((_, count), _, _)| *count) as usize;
    let indices: Vec<u64> = read.iter().map(|((index, _), _, _)| *index).collect();
    if count == 0 || read.len() != count || indices != (0..count as u64).collect::<Vec<_>>() {
        return Err(DataError::Merge(format!(
            "need each of the {count} parts once, got parts {indices:?}"
        )));
    }
    let settings_of = |manifest: &Value| {
        let mut settings = manifest.clone();
        if let Some(object) = settings.as_object_mut() {
            object.remove("report");
            object.remove("shard");
        }
        settings
    };
    let settings = settings_of(&read[0].2);
    let mut programs_in_run = None;
    for ((index, part_count), part, manifest) in &read {
        if settings_of(manifest) != settings || *part_count as usize != count {
            return Err(DataError::Merge(format!(
                "part {index} ({}) was made with other settings than part 0",
                part.display()
            )));
        }
        let total = manifest["shard"]
            .get("programs_in_run")
            .and_then(Value::as_u64);
        if programs_in_run.is_some() && programs_in_run != total {
            return Err(DataError::Merge(format!(
                "part {index} ({}) split a different list of programs",
                part.display()
            )));
        }
        programs_in_run = total;
    }
    std::fs::create_dir_all(out).map_err(|source| DataError::Write {
        path: out.to_path_buf(),
        source,
    })?;
    let shard_records = settings
        .get("shard_records")
        .and_then(Value::as_u64)
        .map_or(DataConfig::default().shard_records, |records| {
            records as usize
        });
    let mut writer = ShardWriter::new(out, shard_records);
    let mut report = DataReport::default();
    for (_, part, manifest) in &read {
        let part_report = &manifest["report"];
        report.add_json(part_report);
        let names: Vec<&str> = part_report["shards"]
            .as_array()
            .map(|names| names.iter().filter_map(Value::as_str).collect())
            .unwrap_or_default();
        for name in names {
            let split = if name.starts_with("heldout-") {
                "heldout"
            } else if name.starts_with("train-") {
                "train"
            } else {
                return Err(DataError::Merge(format!(
                    "{}: unknown shard {name}",
                    part.display()
                )));
            };
            let path = part.join(name);
            let file = File::open(&path).map_err(|source| DataError::Read {
                path: path.clone(),
                source,
            })?;
            for line in BufReader::new(GzDecoder::new(file)).lines() {
                let line = line.map_err(|source| DataError::Read {
                    path: path.clone(),
                    source,
                })?;
                writer.write(split, &line)?;
            }
        }
    }
    report.shards = writer.finish()?;
    write_manifest(out, settings, &report)?;
    Ok(report)
}

/// Fails early, with the tracer's own message, when Python cannot run at
/// all (rather than dropping every program as broken).
fn check_tracer(config: &TracerConfig) -> Result<(), DataError> {
    match tracer::trace_source("def f():\n    return 1\n", "f()", config) {
        Ok(_) => Ok(()),
        Err(error) => Err(DataError::Tracer(error.to_string())),
    }
}

fn drop_reason(error: &TracerError) -> &'static str {
    match error {
        TracerError::PythonNotFound { .. } => "python",
        TracerError::Syntax(_) => "syntax",
        TracerError::EntryCall(_) => "entry_call",
        TracerError::Load(_) => "load",
        TracerError::NoEvents { .. } => "no_events",
        TracerError::Protocol(_) => "protocol",
        TracerError::Io(_) => "io",
    }
}

fn program_output(program: &Program, index: usize, config: &DataConfig) -> ProgramOutput {
    let split = split_of(&program.id, config.seed, config.heldout_share);
    let mut output = ProgramOutput {
        split,
        records: Vec::new(),
        targets: Vec::new(),
        entry_targets: Vec::new(),
        traced: 0,
        dropped: Vec::new(),
    };
    for (call_index, call) in program.calls.iter().enumerate() {
        let trace = match tracer::trace_source(&program.source, call, &config.tracer) {
            Ok(trace) => trace,
            Err(error) => {
                output.dropped.push(drop_reason(&error));
                continue;
            }
        };
        match trace.exit.status {
            ExitStatus::Never => {
                output.dropped.push("limit");
                continue;
            }
            // An exception escaping the call is a normal run; a process
            // that died (`os._exit`, a signal: the exit has a reason) is not.
            ExitStatus::Error if trace.exit.reason.is_some() => {
                output.dropped.push("died");
                continue;
            }
            _ => {}
        }
        let tree = StateTree::new(trace);
        let seed = config.seed
            ^ (index as u64).wrapping_mul(0x9E37_79B9_7F4A_7C15)
            ^ (call_index as u64).wrapping_mul(0xD1B5_4A32_D192_ED03);
        let mut rng = SplitMix64::new(seed);
        let mut walks = walks(&tree, &mut rng, config);
        let before = output.records.len();
        for (direction, walk) in walks.drain(..) {
            let inverse = direction == "inverse";
            let trajectory = walk.to_text(&tree, inverse);
            let pieces = print_trajectory_pieces(&trajectory);
            let bytes: usize = pieces.iter().map(|piece| piece.text.len()).sum();
            if bytes > config.max_record_bytes || trajectory.steps.is_empty() {
                continue;
            }
            let actions = walk.actions();
            let pieces: Vec<Value> = pieces
                .into_iter()
                .map(|piece| {
                    let action = piece.step.map(|step| Action::name(actions[step]));
                    json!([piece.text, action])
                })
                .collect();
            output.targets.extend(
                actions
                    .iter()
                    .map(|&action| Action::name(action).to_string()),
            );
            let from_entry = direction == "forward" && walk.start == tree.start();
            if from_entry {
                output.entry_targets.push(Action::name(actions[0]));
            }
            let record = json!({
                "program": program.id,
                "call": call,
                "direction": direction,
                "entry": from_entry,
                "pieces": pieces,
            });
            output.records.push(record.to_string());
        }
        if output.records.len() == before {
            output.dropped.push("too_long");
        } else {
            output.traced += 1;
        }
    }
    output
}

/// The first actions written from the entry call, one trajectory each, so
/// that the model reads the action after an entry call as often for one as
/// for another (the random policy alone draws `step_into` four times as
/// often as `step_return`, and the task-shaped `step_return` tipped it the
/// other way).
pub const ENTRY_FIRST_ACTIONS: [Action; 4] = [
    Action::StepInto,
    Action::StepOver,
    Action::StepReturn,
    Action::Breakpoint(0),
];

/// The trajectories sampled from one tree, each with its direction.
///
/// Task-shaped (the default): from the entry call, one trajectory per
/// action of [`ENTRY_FIRST_ACTIONS`] (continued with the random policy),
/// the entry return's `inv_step_call`, then `forward` random trajectories
/// from the other calls (none when there are none) and `inverse` random
/// inverse ones. Otherwise: the random policy alone, from any call.
fn walks(tree: &StateTree, rng: &mut SplitMix64, config: &DataConfig) -> Vec<(&'static str, Walk)> {
    let mut walks = Vec::new();
    if config.task_shaped {
        let start = tree.start();
        for first in ENTRY_FIRST_ACTIONS {
            walks.push((
                "forward",
                sampler::sample_forward_first(tree, start, first, rng, config.sampler),
            ));
        }
        let entry_return = tree
            .events()
            .iter()
            .enumerate()
            .rev()
            .find(|(_, event)| event.depth == 0 && event.kind == EventKind::Return)
            .map(|(index, _)| index);
        if let Some(index) = entry_return {
            walks.push((
                "inverse",
                Walk::new(tree, Cursor::Event(index), &[Action::InvStepCall]),
            ));
        }
    }
    for _ in 0..config.forward {
        let walk = if config.task_shaped {
            sampler::sample_forward_inner(tree, rng, config.sampler)
        } else {
            sampler::sample_forward(tree, rng, config.sampler)
        };
        if let Some(walk) = walk {
            walks.push(("forward", walk));
        }
    }
    for _ in 0..config.inverse {
        walks.push((
            "inverse",
            sampler::sample_inverse(tree, rng, config.sampler),
        ));
    }
    walks
}

/// Gzip-compressed JSON-lines shards, one open file per split.
struct ShardWriter {
    out: PathBuf,
    shard_records: usize,
    open: BTreeMap<&'static str, (GzEncoder<BufWriter<File>>, usize, usize)>,
    written: Vec<String>,
}

impl ShardWriter {
    fn new(out: &Path, shard_records: usize) -> ShardWriter {
        ShardWriter {
            out: out.to_path_buf(),
            shard_records: shard_records.max(1),
            open: BTreeMap::new(),
            written: Vec::new(),
        }
    }

    fn write(&mut self, split: &'static str, record: &str) -> Result<(), DataError> {
        if !self.open.contains_key(split) {
            self.open_shard(split, 0)?;
        }
        let (encoder, count, number) = self.open.get_mut(split).expect("opened above");
        let path = self.out.join(shard_name(split, *number));
        encoder
            .write_all(record.as_bytes())
            .and_then(|()| encoder.write_all(b"\n"))
            .map_err(|source| DataError::Write { path, source })?;
        *count += 1;
        if *count >= self.shard_records {
            let number = *number;
            self.close(split)?;
            self.open_shard(split, number + 1)?;
        }
        Ok(())
    }

    fn open_shard(&mut self, split: &'static str, number: usize) -> Result<(), DataError> {
        let path = self.out.join(shard_name(split, number));
        let file = File::create(&path).map_err(|source| DataError::Write { path, source })?;
        let encoder = GzEncoder::new(BufWriter::new(file), Compression::default());
        self.open.insert(split, (encoder, 0, number));
        Ok(())
    }

    fn close(&mut self, split: &'static str) -> Result<(), DataError> {
        if let Some((encoder, count, number)) = self.open.remove(split) {
            let name = shard_name(split, number);
            let path = self.out.join(&name);
            encoder
                .finish()
                .and_then(|mut file| file.flush())
                .map_err(|source| DataError::Write {
                    path: path.clone(),
                    source,
                })?;
            if count == 0 {
                let _ = std::fs::remove_file(&path);
            } else {
                self.written.push(name);
            }
        }
        Ok(())
    }

    fn finish(mut self) -> Result<Vec<String>, DataError> {
        let splits: Vec<&'static str> = self.open.keys().copied().collect();
        for split in splits {
            self.close(split)?;
        }
        self.written.sort();
        Ok(self.written)
    }
}

fn shard_name(split: &str, number: usize) -> String {
    format!("{split}-{number:05}.jsonl.gz")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_split_is_stable_and_near_its_share() {
        let heldout = (0..10_000)
            .filter(|i| split_of(&format!("gen-1-{i:06}"), 7, 0.05) == "heldout")
            .count();
        assert!((350..650).contains(&heldout), "{heldout} held out of 10000");
        assert_eq!(
            split_of("gen-1-000001", 7, 0.05),
            split_of("gen-1-000001", 7, 0.05)
        );
        assert_eq!(split_of("anything", 7, 0.0), "train");
    }
}

//! `ndb data generate`: programs (generated, or read from corpus files)
//! traced by the real tracer into a sharded trajectory dataset (see
//! `ndb_inference::data`); `--shard I/N` traces one machine's part of it and
//! `ndb data merge` joins the parts into what one machine would have written.

use std::io::{BufRead, BufReader, Write};
use std::path::{Path, PathBuf};
use std::process::Command;

use anyhow::{bail, Context, Result};
use clap::{Args, Subcommand};
use indicatif::{ProgressBar, ProgressStyle};
use ndb_inference::data::{self, DataConfig, Program, Shard};
use ndb_inference::tracer::TracerConfig;

/// The program generator, shipped inside the binary.
const PROGRAMS_PY: &str = include_str!("../inference/training/programs.py");

#[derive(Subcommand)]
pub enum DataCommand {
    /// Trace programs and write a sharded dataset of trajectories.
    Generate(GenerateArgs),
    /// Join the folders of a run split with `generate --shard I/N` (every
    /// part once, any order) into one dataset, byte for byte what one
    /// machine would have written.
    Merge {
        /// The merged dataset's folder.
        #[arg(long)]
        out: PathBuf,
        /// The parts' folders.
        #[arg(required = true)]
        parts: Vec<PathBuf>,
    },
    /// Print the Lark grammar that constrains the model's next state for a
    /// source file (llguidance's syntax, special tokens as token
    /// references), as `ndb predict` sends it: for grammar work and for
    /// `inference/training/forced_tokens.py`.
    Grammar {
        /// The Python file whose lines a state may name.
        source: PathBuf,
        /// The grammar of an inverse state (inv_step_* actions).
        #[arg(long)]
        inverse: bool,
    },
    /// Write generated programs as JSON lines (`{"id", "source", "calls",
    /// "family"}`) on stdout, without running them.
    Programs {
        #[arg(long, default_value_t = 1000)]
        programs: usize,
        #[arg(long, default_value_t = 0)]
        seed: u64,
        #[arg(long, default_value = "python3")]
        python: PathBuf,
    },
}

#[derive(Args)]
pub struct GenerateArgs {
    /// The dataset's folder (created; existing shards are replaced).
    #[arg(long)]
    out: PathBuf,
    /// How many generated programs (when no --corpus is given), or the most
    /// taken from the corpus files.
    #[arg(long, default_value_t = 1000)]
    programs: usize,
    /// JSON-lines program files to trace instead of generated programs
    /// (several are spread evenly through each other).
    #[arg(long)]
    corpus: Vec<PathBuf>,
    /// Parallel tracer processes.
    #[arg(long, default_value_t = 2)]
    workers: usize,
    #[arg(long, default_value_t = 0)]
    seed: u64,
    /// Random-policy forward trajectories per traced call.
    #[arg(long, default_value_t = 2)]
    forward: usize,
    /// Random-policy inverse trajectories per traced call.
    #[arg(long, default_value_t = 2)]
    inverse: usize,
    /// Leave out the entry call's trajectories (one per first action:
    /// step_into, step_over, step_return, breakpoint) and the entry
    /// return's inv_step_call; random ones may then start at the entry.
    #[arg(long)]
    no_task_shaped: bool,
    /// Share of programs held out for evaluation.
    #[arg(long, default_value_t = 0.05)]
    heldout_share: f64,
    /// Most actions per trajectory.
    #[arg(long, default_value_t = 12)]
    max_steps: usize,
    /// Records longer than this many bytes are dropped.
    #[arg(long, default_value_t = 6000)]
    max_record_bytes: usize,
    #[arg(long, default_value = "python3")]
    python: PathBuf,
    /// Trace only part I of N of the programs (0 <= I < N; a cluster job
    /// array runs one part per machine), for `ndb data merge`.
    #[arg(long, value_parser = Shard::parse)]
    shard: Option<Shard>,
}

pub fn run(command: DataCommand, out: &mut impl Write) -> Result<()> {
    match command {
        DataCommand::Programs {
            programs,
            seed,
            python,
        } => {
            let text = generate_programs(&python, programs, seed)?;
            out.write_all(text.as_bytes())?;
            Ok(())
        }
        DataCommand::Generate(args) => generate(args, out),
        DataCommand::Grammar { source, inverse } => {
            let text = std::fs::read_to_string(&source)
                .with_context(|| format!("cannot read {}", source.display()))?;
            let grammar = ndb_grammar::lark::state_grammar(Some(&text), inverse);
            out.write_all(grammar.as_bytes())?;
            Ok(())
        }
        DataCommand::Merge { out: folder, parts } => {
            let report = data::merge(&parts, &folder)?;
            eprintln!(
                "ndb data: merged {} parts: {} programs, {} records",
                parts.len(),
                report.programs,
                report.records.values().sum::<usize>()
            );
            writeln!(
                out,
                "{}",
                serde_json::to_string(&report.to_json()).expect("a report serialises")
            )?;
            Ok(())
        }
    }
}

fn generate(args: GenerateArgs, out: &mut impl Write) -> Result<()> {
    if !(0.0..1.0).contains(&args.heldout_share) {
        bail!("--heldout-share must be in [0, 1)");
    }
    let programs = if args.corpus.is_empty() {
        let text = generate_programs(&args.python, args.programs, args.seed)?;
        parse_programs(&text, Path::new("<generated>"))?
    } else {
        let mut corpora = Vec::new();
        for path in &args.corpus {
            let text = std::fs::read_to_string(path)
                .with_context(|| format!("cannot read {}", path.display()))?;
            corpora.push(parse_programs(&text, path)?);
        }
        let mut programs = interleave(corpora);
        programs.truncate(args.programs);
        programs
    };
    let config = DataConfig {
        seed: args.seed,
        workers: args.workers.max(1),
        forward: args.forward,
        inverse: args.inverse,
        task_shaped: !args.no_task_shaped,
        heldout_share: args.heldout_share,
        max_record_bytes: args.max_record_bytes,
        sampler: ndb_grammar::SamplerConfig {
            max_steps: args.max_steps.max(1),
        },
        tracer: TracerConfig {
            python: args.python.clone(),
            ..DataConfig::default().tracer
        },
        shard: args.shard,
        ..DataConfig::default()
    };
    let total = config
        .shard
        .map_or(programs.len(), |shard| shard.range(programs.len()).len());
    let progress = ProgressBar::new(total as u64);
    progress.set_style(
        ProgressStyle::with_template(
            "{bar:30} {pos}/{len} programs [{elapsed_precise}, {per_sec}, eta {eta}]",
        )
        .unwrap_or_else(|_| ProgressStyle::default_bar()),
    );
    let report = data::generate(&programs, &args.out, &config, &|done| {
        progress.set_position(done as u64)
    })?;
    progress.finish_and_clear();
    let rate = report.calls as f64 / report.seconds.max(1e-9);
    eprintln!(
        "ndb data: {} programs, {} calls traced of {}, {} records ({} held out), {:.1} MB of text, \
         {:.0} s ({rate:.1} calls/s); dropped {:?}",
        report.programs,
        report.traced,
        report.calls,
        report.records.values().sum::<usize>(),
        report.records.get("heldout").copied().unwrap_or(0),
        report.text_bytes as f64 / 1e6,
        report.seconds,
        report.dropped,
    );
    writeln!(
        out,
        "{}",
        serde_json::to_string(&report.to_json()).expect("a report serialises")
    )?;
    Ok(())
}

/// Runs the shipped generator: `programs.py --count N --seed S`.
fn generate_programs(python: &Path, count: usize, seed: u64) -> Result<String> {
    let directory = std::env::temp_dir().join(format!("ndb-programs-{}", std::process::id()));
    std::fs::create_dir_all(&directory)?;
    let script = directory.join("programs.py");
    std::fs::write(&script, PROGRAMS_PY)?;
    let output = Command::new(python)
        .arg(&script)
        .args(["--count", &count.to_string(), "--seed", &seed.to_string()])
        .output()
        .with_context(|| format!("cannot run {}", python.display()));
    let _ = std::fs::remove_dir_all(&directory);
    let output = output?;
    if !output.status.success() {
        bail!(
            "the program generator failed ({}): {}",
            output.status,
            String::from_utf8_lossy(&output.stderr).trim()
        );
    }
    String::from_utf8(output.stdout).context("the program generator wrote non-UTF-8 text")
}

/// The programs of several corpora, spread evenly through each other (the
/// k-th of n programs of a corpus sits at (k + 1/2) / n), so that records
/// written in this order mix the corpora in every part of a shard, and
/// `--programs N` takes a share of each. One corpus keeps its order.
fn interleave(corpora: Vec<Vec<Program>>) -> Vec<Program> {
    let mut keyed: Vec<(f64, usize, Program)> = Vec::new();
    for (corpus, programs) in corpora.into_iter().enumerate() {
        let n = programs.len() as f64;
        keyed.extend(
            programs
                .into_iter()
                .enumerate()
                .map(|(k, program)| ((k as f64 + 0.5) / n, corpus, program)),
        );
    }
    keyed.sort_by(|a, b| a.0.total_cmp(&b.0).then(a.1.cmp(&b.1)));
    keyed.into_iter().map(|(_, _, program)| program).collect()
}

fn parse_programs(text: &str, path: &Path) -> Result<Vec<Program>> {
    let mut programs = Vec::new();
    for (number, line) in BufReader::new(text.as_bytes()).lines().enumerate() {
        let line = line?;
        if line.trim().is_empty() {
            continue;
        }
        let program = Program::from_json(&line).map_err(|error| {
            anyhow::anyhow!("{}:{}: not a program: {error}", path.display(), number + 1)
        })?;
        programs.push(program);
    }
    Ok(programs)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn corpus(prefix: &str, n: usize) -> Vec<Program> {
        (0..n)
            .map(|k| Program {
                id: format!("{prefix}{k}"),
                source: String::new(),
                calls: Vec::new(),
                family: None,
            })
            .collect()
    }

    fn ids(programs: &[Program]) -> Vec<&str> {
        programs.iter().map(|program| program.id.as_str()).collect()
    }

    #[test]
    fn corpora_are_spread_through_each_other_in_proportion() {
        let mixed = interleave(vec![corpus("g", 2), corpus("r", 4)]);
        assert_eq!(ids(&mixed), ["r0", "g0", "r1", "r2", "g1", "r3"]);
    }

    #[test]
    fn one_corpus_keeps_its_order() {
        let programs = interleave(vec![corpus("g", 5)]);
        assert_eq!(ids(&programs), ["g0", "g1", "g2", "g3", "g4"]);
        assert!(interleave(vec![corpus("g", 0), Vec::new()]).is_empty());
    }
}

//! `ndb`, the neural debugger's one user-facing binary: a thin command-line
//! front end over `ndb-grammar` (the debugger's world) and `ndb-inference`
//! (how states are obtained). Results go to stdout, messages to stderr.

use std::io::Write;
use std::path::PathBuf;
use std::process::ExitCode;
use std::time::Duration;

use anyhow::{bail, Context, Result};
use clap::{Args, Parser, Subcommand, ValueEnum};
use ndb_grammar::{text, Action, Cursor, StateTree, Walk};
use ndb_inference::json::state_to_json;
use ndb_inference::tracer::{trace_file, TracerConfig};

#[derive(Parser)]
#[command(name = "ndb", version, about = "A neural debugger for Python")]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Run FILE's entry call under the real tracer and print the whole run.
    Trace {
        file: PathBuf,
        /// The entry call, such as `f([1, 2], k=3)`.
        #[arg(long = "call")]
        call: String,
        #[arg(long, value_enum, default_value_t = Format::Json)]
        format: Format,
        #[command(flatten)]
        limits: TracerArgs,
    },
    /// Start at the entry function's call state and apply debugger actions.
    Step {
        file: PathBuf,
        /// The entry call, such as `f([1, 2], k=3)`.
        #[arg(long = "call")]
        call: String,
        /// Comma-separated: step_into, step_over, step_return,
        /// breakpoint:LINE, continue, inv_step_into, inv_step_over,
        /// inv_step_call.
        #[arg(long, allow_hyphen_values = true)]
        actions: String,
        /// Where states come from: `trace` runs the real tracer.
        #[arg(long, value_enum, default_value_t = Backend::Trace)]
        backend: Backend,
        #[arg(long, value_enum, default_value_t = Format::Json)]
        format: Format,
        #[command(flatten)]
        limits: TracerArgs,
    },
}

#[derive(Clone, Copy, ValueEnum)]
enum Format {
    Json,
    Text,
}

#[derive(Clone, Copy, ValueEnum)]
enum Backend {
    Trace,
}

/// Bounds of the real tracer, which runs the user's code.
#[derive(Args)]
struct TracerArgs {
    /// Python interpreter that runs the code.
    #[arg(long, default_value = "python3")]
    python: PathBuf,
    /// Stop recording after this many events (the run ends `never`).
    #[arg(long, default_value_t = 10_000)]
    max_events: usize,
    /// Wall-clock limit in seconds.
    #[arg(long, default_value_t = 10.0)]
    time_limit: f64,
    /// Address-space limit of the traced process, in MiB.
    #[arg(long, default_value_t = 1024)]
    memory_limit_mb: u64,
    /// Keep at most this many KiB of what the program prints.
    #[arg(long, default_value_t = 64)]
    max_output_kb: usize,
}

impl TracerArgs {
    fn config(&self) -> Result<TracerConfig> {
        if !(self.time_limit > 0.0 && self.time_limit.is_finite()) {
            bail!("--time-limit must be a positive number of seconds");
        }
        Ok(TracerConfig {
            python: self.python.clone(),
            max_events: self.max_events,
            time_limit: Duration::from_secs_f64(self.time_limit),
            memory_limit_bytes: self.memory_limit_mb.saturating_mul(1024 * 1024),
            max_stdout_bytes: self.max_output_kb.saturating_mul(1024),
            ..TracerConfig::default()
        })
    }
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    match run(cli) {
        Ok(()) => ExitCode::SUCCESS,
        Err(error) => {
            eprintln!("ndb: {error:#}");
            ExitCode::FAILURE
        }
    }
}

fn run(cli: Cli) -> Result<()> {
    let mut out = std::io::stdout().lock();
    match cli.command {
        Command::Trace {
            file,
            call,
            format: Format::Json,
            limits,
        } => {
            let tree = record(&file, &call, &limits)?;
            for (index, event) in tree.events().iter().enumerate() {
                let mut object = state_to_json(tree.view(Cursor::Event(index)).as_ref());
                object["function"] = event.function.clone().into();
                object["frame"] = event.frame.into();
                writeln!(out, "{object}")?;
            }
            let mut object = state_to_json(tree.view(Cursor::Exit).as_ref());
            object["reason"] = tree.trace().exit.reason.clone().into();
            object["stdout"] = tree.trace().stdout.clone().into();
            writeln!(out, "{object}")?;
        }
        Command::Trace {
            file,
            call,
            format: Format::Text,
            limits,
        } => {
            // In the text language the whole run is repeated step_into.
            let tree = record(&file, &call, &limits)?;
            let walk = Walk::until_exit(&tree, tree.start(), Action::StepInto);
            print_walk(&mut out, &tree, &walk, Format::Text)?;
        }
        Command::Step {
            file,
            call,
            actions,
            backend: Backend::Trace,
            format,
            limits,
        } => {
            let actions = Action::parse_list(&actions)?;
            let tree = record(&file, &call, &limits)?;
            let walk = Walk::new(&tree, tree.start(), &actions);
            print_walk(&mut out, &tree, &walk, format)?;
        }
    }
    Ok(())
}

/// Prints the states of a walk: one JSON object per line (the start state,
/// then one per action), or the walk in the text language.
fn print_walk(out: &mut impl Write, tree: &StateTree, walk: &Walk, format: Format) -> Result<()> {
    match format {
        Format::Json => {
            writeln!(out, "{}", state_to_json(tree.view(walk.start).as_ref()))?;
            for &(_, cursor) in &walk.steps {
                writeln!(out, "{}", state_to_json(tree.view(cursor).as_ref()))?;
            }
        }
        Format::Text => write!(
            out,
            "{}",
            text::print_trajectory(&walk.to_text(tree, false))
        )?,
    }
    Ok(())
}

fn record(file: &std::path::Path, call: &str, limits: &TracerArgs) -> Result<StateTree> {
    if !file.is_file() {
        bail!("no such file: {}", file.display());
    }
    let trace = trace_file(file, call, &limits.config()?)
        .with_context(|| format!("tracing {} with `{call}`", file.display()))?;
    if let Some(reason) = &trace.exit.reason {
        eprintln!(
            "ndb: the run ended {}: {reason}",
            trace.exit.status.as_str()
        );
    }
    Ok(StateTree::new(trace))
}

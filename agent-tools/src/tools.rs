//! The tools as plain Rust: typed arguments in ([`ToolCall`]), typed results
//! out ([`ToolOutput`]), no MCP. The MCP server, `ndb tool NAME --json ARGS`
//! and the tests all call [`Tools::call`]. Calls block (model generations,
//! traced runs): async callers run them on a blocking thread.

use std::path::Path;
use std::sync::Arc;

use ndb_grammar::{Action, StateView, TextEvent};
use ndb_inference::debugger::{
    run_actions, Cancel, Debugger, Session, State, Step, TracerDebugger,
};
use ndb_inference::engine::Engine;
use ndb_inference::ops;
use ndb_inference::suggest::{self, Seed, SuggestError};
use ndb_inference::tracer::SandboxReport;
use serde::de::DeserializeOwned;
use serde_json::Value;

use crate::args::*;
use crate::catalog::TOOL_NAMES;
use crate::error::ToolError;
use crate::output::*;
use crate::python::{callee_of, Function, PythonFile};
use crate::roots::PathScope;
use crate::sessions::{SessionError, Sessions};
use crate::view::{bound_value, state_out, LocalsRequest};
use crate::{Backend, ServerConfig};

/// The largest source accepted, as text or as a file.
pub const MAX_SOURCE_BYTES: usize = 512 * 1024;
/// The most actions one `run_trace` applies, and one session keeps.
const MAX_ACTIONS: usize = 500;
/// Characters of the program's printed output returned by `run_trace`.
const MAX_STDOUT_CHARS: usize = 4_000;
/// The default number of samples of `suggest_inputs`.
const DEFAULT_SUGGESTIONS: usize = 4;

/// One call of one tool with its typed arguments.
#[derive(Debug)]
pub enum ToolCall {
    ListFunctions(ListFunctionsArgs),
    StartSession(StartSessionArgs),
    Step(StepArgs),
    GetState(GetStateArgs),
    EndSession(EndSessionArgs),
    PredictOutput(PredictOutputArgs),
    PredictAtLine(PredictAtLineArgs),
    SuggestInputs(SuggestInputsArgs),
    RunTrace(RunTraceArgs),
    CheckPrediction(CheckPredictionArgs),
}

fn parse_args<T: DeserializeOwned>(tool: &str, arguments: Value) -> Result<T, ToolError> {
    let arguments = match arguments {
        Value::Null => Value::Object(Default::default()),
        other => other,
    };
    if !arguments.is_object() {
        return Err(ToolError::invalid(
            tool,
            "arguments must be a JSON object such as {\"source\": \"...\"}",
        ));
    }
    serde_json::from_value(arguments).map_err(|error| ToolError::invalid(tool, error.to_string()))
}

impl ToolCall {
    /// The call of tool `name` with JSON `arguments` (an object).
    pub fn parse(name: &str, arguments: Value) -> Result<ToolCall, ToolError> {
        Ok(match name {
            "list_functions" => ToolCall::ListFunctions(parse_args(name, arguments)?),
            "start_session" => ToolCall::StartSession(parse_args(name, arguments)?),
            "step" => ToolCall::Step(parse_args(name, arguments)?),
            "get_state" => ToolCall::GetState(parse_args(name, arguments)?),
            "end_session" => ToolCall::EndSession(parse_args(name, arguments)?),
            "predict_output" => ToolCall::PredictOutput(parse_args(name, arguments)?),
            "predict_at_line" => ToolCall::PredictAtLine(parse_args(name, arguments)?),
            "suggest_inputs" => ToolCall::SuggestInputs(parse_args(name, arguments)?),
            "run_trace" => ToolCall::RunTrace(parse_args(name, arguments)?),
            "check_prediction" => ToolCall::CheckPrediction(parse_args(name, arguments)?),
            _ => {
                return Err(ToolError::UnknownTool {
                    name: name.to_string(),
                    known: TOOL_NAMES.join(", "),
                })
            }
        })
    }
}

/// The result of one call.
#[derive(Clone, Debug, PartialEq)]
pub enum ToolOutput {
    ListFunctions(ListFunctionsOut),
    Session(SessionOut),
    EndSession(EndSessionOut),
    PredictOutput(PredictOutputOut),
    PredictAtLine(PredictAtLineOut),
    SuggestInputs(SuggestInputsOut),
    RunTrace(RunTraceOut),
    CheckPrediction(CheckPredictionOut),
}

impl ToolOutput {
    /// The structured result (`structuredContent`).
    pub fn to_json(&self) -> Value {
        let value = match self {
            ToolOutput::ListFunctions(out) => serde_json::to_value(out),
            ToolOutput::Session(out) => serde_json::to_value(out),
            ToolOutput::EndSession(out) => serde_json::to_value(out),
            ToolOutput::PredictOutput(out) => serde_json::to_value(out),
            ToolOutput::PredictAtLine(out) => serde_json::to_value(out),
            ToolOutput::SuggestInputs(out) => serde_json::to_value(out),
            ToolOutput::RunTrace(out) => serde_json::to_value(out),
            ToolOutput::CheckPrediction(out) => serde_json::to_value(out),
        };
        // Plain structs of strings and numbers always serialize.
        value.expect("tool outputs serialize to JSON")
    }
}

/// The tools with their state: the engine (the model, loaded once, and the
/// real tracer), the backend every prediction asks, and the live sessions.
pub struct Tools {
    config: ServerConfig,
    engine: Arc<Engine>,
    backend: Backend,
    sessions: Sessions,
    paths: PathScope,
}

/// A source the tools read, with what tree-sitter found in it.
struct Source {
    /// The text as every question reads it (lines and spans), handed to
    /// the debugger as it is, so no question reads it again.
    text: Arc<ndb_grammar::Source>,
    functions: Vec<Function>,
}

impl Tools {
    pub fn new(config: ServerConfig) -> Tools {
        let engine = Engine::new(config.model.clone(), config.tracer.clone());
        let backend = config.backend;
        Tools::build(config, engine, backend)
    }

    /// Tools whose predictions come from `debugger` (tests, benchmarks).
    pub fn with_debugger(config: ServerConfig, debugger: Arc<dyn Debugger>) -> Tools {
        let engine = Engine::with_debugger(debugger, config.tracer.clone());
        Tools::build(config, engine, Backend::Model)
    }

    fn build(config: ServerConfig, engine: Arc<Engine>, backend: Backend) -> Tools {
        let sessions = Sessions::new(config.max_sessions, config.idle_timeout);
        let paths = PathScope::new(&config.allow_paths);
        Tools {
            config,
            engine,
            backend,
            sessions,
            paths,
        }
    }

    /// The directories `path` arguments may name.
    pub fn paths(&self) -> &PathScope {
        &self.paths
    }

    pub fn config(&self) -> &ServerConfig {
        &self.config
    }

    /// Runs one call to the end (blocking).
    pub fn call(&self, call: ToolCall, cancel: &Cancel) -> Result<ToolOutput, ToolError> {
        if cancel.is_cancelled() {
            return Err(ToolError::Cancelled);
        }
        match call {
            ToolCall::ListFunctions(args) => {
                self.list_functions(args).map(ToolOutput::ListFunctions)
            }
            ToolCall::StartSession(args) => {
                self.start_session(args, cancel).map(ToolOutput::Session)
            }
            ToolCall::Step(args) => self.step(args, cancel).map(ToolOutput::Session),
            ToolCall::GetState(args) => self.get_state(args).map(ToolOutput::Session),
            ToolCall::EndSession(args) => self.end_session(args).map(ToolOutput::EndSession),
            ToolCall::PredictOutput(args) => self
                .predict_output(args, cancel)
                .map(ToolOutput::PredictOutput),
            ToolCall::PredictAtLine(args) => self
                .predict_at_line(args, cancel)
                .map(ToolOutput::PredictAtLine),
            ToolCall::SuggestInputs(args) => self
                .suggest_inputs(args, cancel)
                .map(ToolOutput::SuggestInputs),
            ToolCall::RunTrace(args) => self.run_trace(args, cancel).map(ToolOutput::RunTrace),
            ToolCall::CheckPrediction(args) => self
                .check_prediction(args, cancel)
                .map(ToolOutput::CheckPrediction),
        }
    }

    /// Loads the model now instead of at the first prediction.
    pub fn warm_up(&self) -> Result<(), ToolError> {
        if self.backend == Backend::Tracer {
            return Ok(());
        }
        self.engine.forget_failed_load();
        self.engine
            .model_blocking()
            .map(|_| ())
            .map_err(ToolError::Model)
    }

    /// The debugger a prediction asks, with a call's `samples` (at most 16).
    fn predictor(&self, samples: Option<u32>) -> Result<Arc<dyn Debugger>, ToolError> {
        let samples = samples.map(|k| k.clamp(1, 16) as usize);
        self.engine.forget_failed_load();
        self.engine
            .debugger(self.backend, samples)
            .map_err(ToolError::Model)
    }

    /// The real tracer (runs code: callers check [`Self::require_run`]).
    fn tracer(&self) -> Arc<TracerDebugger> {
        self.engine.tracer_debugger()
    }

    fn require_run(&self, tool: &str) -> Result<(), ToolError> {
        if self.config.allow_run {
            Ok(())
        } else {
            Err(ToolError::RunNotAllowed {
                tool: tool.to_string(),
            })
        }
    }

    // ---- sources -------------------------------------------------------

    fn read_source(&self, tool: &str, args: &impl HasSource) -> Result<Arc<str>, ToolError> {
        let too_big = |size: usize| {
            ToolError::Source(format!(
                "the source is {size} bytes; at most {MAX_SOURCE_BYTES} are accepted (give the file with the function alone)"
            ))
        };
        match (args.source(), args.path()) {
            (Some(_), Some(_)) => Err(ToolError::invalid(
                tool,
                "give `source` or `path`, not both",
            )),
            (None, None) => Err(ToolError::invalid(
                tool,
                "give the Python code as `source` (text) or `path` (a file)",
            )),
            (Some(source), None) => {
                if source.len() > MAX_SOURCE_BYTES {
                    return Err(too_big(source.len()));
                }
                Ok(source.into())
            }
            (None, Some(given)) => {
                let resolved = self.paths.resolve(given)?;
                let path = Path::new(given);
                let metadata = std::fs::metadata(&resolved).map_err(|e| {
                    ToolError::Source(format!("cannot read `{}`: {e}", path.display()))
                })?;
                if !metadata.is_file() {
                    return Err(ToolError::Source(format!(
                        "`{}` is not a file",
                        path.display()
                    )));
                }
                if metadata.len() > MAX_SOURCE_BYTES as u64 {
                    return Err(too_big(metadata.len() as usize));
                }
                let bytes = std::fs::read(&resolved).map_err(|e| {
                    ToolError::Source(format!("cannot read `{}`: {e}", path.display()))
                })?;
                let text = String::from_utf8(bytes).map_err(|_| {
                    ToolError::Source(format!("`{}` is not UTF-8 text", path.display()))
                })?;
                Ok(text.into())
            }
        }
    }

    /// The source, which must parse.
    fn load(&self, tool: &str, args: &impl HasSource) -> Result<Source, ToolError> {
        let text = self.read_source(tool, args)?;
        let file = PythonFile::parse(text);
        if let Some(error) = file.syntax_error() {
            return Err(ToolError::Source(format!(
                "the source has a syntax error at line {}, column {}: `{}`",
                error.line, error.column, error.text
            )));
        }
        Ok(Source {
            text: file.source(),
            functions: file.functions(),
        })
    }

    fn known_functions(source: &Source) -> String {
        let names: Vec<&str> = source
            .functions
            .iter()
            .filter(|f| f.top_level)
            .map(|f| f.name.as_str())
            .collect();
        if names.is_empty() {
            "the source defines no top-level function".to_string()
        } else {
            format!("its functions are: {}", names.join(", "))
        }
    }

    fn function<'a>(source: &'a Source, name: &str) -> Result<&'a Function, ToolError> {
        source
            .functions
            .iter()
            .find(|f| f.top_level && f.name == name)
            .ok_or_else(|| {
                ToolError::Source(format!(
                    "no top-level function `{name}` in the source; {}",
                    Self::known_functions(source)
                ))
            })
    }

    /// Checks that `entry_call` calls a top-level function of the source.
    fn entry_call(tool: &str, source: &Source, entry_call: &str) -> Result<String, ToolError> {
        let callee =
            callee_of(entry_call).map_err(|error| ToolError::invalid(tool, error.to_string()))?;
        Self::function(source, &callee)?;
        Ok(entry_call.trim().to_string())
    }

    /// Checks that a breakpoint line is a code line inside a function.
    fn breakpoint_line(source: &Source, line: u32) -> Result<(), ToolError> {
        let count = source.text.line_count();
        let ranges = || {
            source
                .functions
                .iter()
                .map(|f| {
                    format!(
                        "`{}` spans lines {}-{}",
                        f.qualified_name, f.line, f.end_line
                    )
                })
                .collect::<Vec<_>>()
                .join(", ")
        };
        if line == 0 || line as usize > count {
            return Err(ToolError::Source(format!(
                "line {line} is outside the file, which has {count} lines; {}",
                ranges()
            )));
        }
        if !source
            .functions
            .iter()
            .any(|f| f.line < line && line <= f.end_line)
        {
            return Err(ToolError::Source(format!(
                "line {line} is not inside a function body; {}",
                ranges()
            )));
        }
        if !ndb_grammar::tree::pdb_accepts_breakpoint(&source.text, line) {
            return Err(ToolError::Source(format!(
                "line {line} is blank, a comment or a string; pdb accepts breakpoints only on code lines"
            )));
        }
        Ok(())
    }

    // ---- tools ---------------------------------------------------------

    fn list_functions(&self, args: ListFunctionsArgs) -> Result<ListFunctionsOut, ToolError> {
        let text = self.read_source("list_functions", &args)?;
        let file = PythonFile::parse(text.clone());
        let syntax_error = file
            .syntax_error()
            .map(|e| format!("line {}, column {}: `{}`", e.line, e.column, e.text));
        let functions = file
            .functions()
            .into_iter()
            .map(|f| FunctionOut {
                name: f.name,
                qualified_name: f.qualified_name,
                signature: f.signature,
                parameters: f.parameters,
                line: f.line,
                end_line: f.end_line,
                method: f.method,
                entry_calls: f
                    .entry_calls
                    .into_iter()
                    .map(|c| EntryCallOut {
                        call: c.call,
                        line: c.line,
                        origin: c.origin.as_str().to_string(),
                    })
                    .collect(),
            })
            .collect();
        Ok(ListFunctionsOut {
            functions,
            syntax_error,
        })
    }

    fn start_session(
        &self,
        args: StartSessionArgs,
        cancel: &Cancel,
    ) -> Result<SessionOut, ToolError> {
        let tool = "start_session";
        let source = self.load(tool, &args)?;
        let entry_call = Self::entry_call(tool, &source, &args.entry_call)?;
        let debugger = self.predictor(args.samples)?;
        let start = debugger.start(&source.text, &entry_call, cancel)?;
        let session = Session {
            source: source.text.clone(),
            entry_call: Some(entry_call),
            start,
            steps: Vec::new(),
        };
        let live = self
            .sessions
            .insert(debugger.clone(), session)
            .map_err(ToolError::Session)?;
        let data = live.lock();
        Ok(session_out(
            &live.id,
            &data,
            None,
            LocalsRequest::default(),
            &debugger.name(),
        ))
    }

    fn step(&self, args: StepArgs, cancel: &Cancel) -> Result<SessionOut, ToolError> {
        let tool = "step";
        let live = self
            .sessions
            .get(&args.session_id)
            .map_err(ToolError::Session)?;
        let action = match (args.action, args.line) {
            (ActionName::Breakpoint, Some(line)) => Action::Breakpoint(line),
            (ActionName::Breakpoint, None) => {
                return Err(ToolError::invalid(tool, "`breakpoint` needs `line`"))
            }
            (_, Some(_)) => {
                return Err(ToolError::invalid(
                    tool,
                    "`line` is only for the `breakpoint` action",
                ))
            }
            (ActionName::StepInto, None) => Action::StepInto,
            (ActionName::StepOver, None) => Action::StepOver,
            (ActionName::StepReturn, None) => Action::StepReturn,
            (ActionName::Continue, None) => Action::Continue,
            (ActionName::InvStepInto, None) => Action::InvStepInto,
            (ActionName::InvStepOver, None) => Action::InvStepOver,
            (ActionName::InvStepCall, None) => Action::InvStepCall,
        };
        let mut data = live.lock();
        if let Action::Breakpoint(line) = action {
            let functions = PythonFile::parse(data.source.shared_text().clone()).functions();
            let source = Source {
                text: data.source.clone(),
                functions,
            };
            Self::breakpoint_line(&source, line)?;
        }
        if is_exit(data.current()) && !action.is_inverse() {
            return Err(ToolError::Session(SessionError::Exited {
                id: live.id.clone(),
            }));
        }
        if data.steps.len() >= MAX_ACTIONS {
            return Err(ToolError::Session(SessionError::TooManySteps {
                id: live.id.clone(),
                max_actions: MAX_ACTIONS,
            }));
        }
        if is_exit_entry(data.current()) && action.is_inverse() {
            return Err(ToolError::Session(SessionError::BeforeEntry));
        }
        let state = live.debugger.next(&data, action, cancel)?;
        data.steps.push(Step { action, state });
        let request = LocalsRequest {
            names: args.names.as_deref(),
            all: args.all_locals.unwrap_or(false),
        };
        Ok(session_out(
            &live.id,
            &data,
            Some(action),
            request,
            &live.debugger.name(),
        ))
    }

    fn get_state(&self, args: GetStateArgs) -> Result<SessionOut, ToolError> {
        let live = self
            .sessions
            .get(&args.session_id)
            .map_err(ToolError::Session)?;
        let data = live.lock();
        let request = LocalsRequest {
            names: args.names.as_deref(),
            all: args.all_locals.unwrap_or(true),
        };
        let mut out = session_out(&live.id, &data, None, request, &live.debugger.name());
        if request.all && request.names.is_none() {
            // get_state shows the whole frame, not the change.
            out.state = state_out(data.current(), None, &data.source, request);
        }
        Ok(out)
    }

    fn end_session(&self, args: EndSessionArgs) -> Result<EndSessionOut, ToolError> {
        let live = self
            .sessions
            .remove(&args.session_id)
            .map_err(ToolError::Session)?;
        // A step still running on it finishes on its own; it is not waited for.
        let steps = live.steps_if_idle().unwrap_or(0) as u32;
        Ok(EndSessionOut {
            session_id: live.id.clone(),
            ended: true,
            steps,
        })
    }

    fn predict_output(
        &self,
        args: PredictOutputArgs,
        cancel: &Cancel,
    ) -> Result<PredictOutputOut, ToolError> {
        let tool = "predict_output";
        let source = self.load(tool, &args)?;
        Self::function(&source, &args.function)?;
        let entry_call = ops::entry_call(&args.function, &args.input);
        if callee_of(&entry_call).as_deref() != Ok(args.function.as_str()) {
            return Err(ToolError::invalid(
                tool,
                format!(
                    "`input` must be argument text such as `[1, 2], k=3`; `{entry_call}` is not a call"
                ),
            ));
        }
        let mode = args.mode.unwrap_or_default();
        let debugger = self.predictor(args.samples)?;
        let prediction = ops::predict_output(&*debugger, &source.text, &entry_call, mode, cancel)?;
        let state = state_out(
            &prediction.state,
            None,
            &source.text,
            LocalsRequest::default(),
        );
        Ok(PredictOutputOut {
            entry_call,
            value: prediction.value,
            raised: prediction.raised,
            confidence: state.confidence,
            state,
            debugger: debugger.name(),
        })
    }

    fn predict_at_line(
        &self,
        args: PredictAtLineArgs,
        cancel: &Cancel,
    ) -> Result<PredictAtLineOut, ToolError> {
        let tool = "predict_at_line";
        let source = self.load(tool, &args)?;
        let entry_call = Self::entry_call(tool, &source, &args.entry_call)?;
        Self::breakpoint_line(&source, args.line)?;
        let debugger = self.predictor(args.samples)?;
        let session =
            ops::predict_at_line(&*debugger, &source.text, &entry_call, args.line, cancel)?;
        let current = session.current();
        let reached = matches!(
            &current.view,
            Some(StateView::Event { line, .. }) if *line == args.line
        );
        let request = LocalsRequest {
            names: args.names.as_deref(),
            all: false,
        };
        Ok(PredictAtLineOut {
            entry_call,
            line: args.line,
            reached,
            state: state_out(current, None, &source.text, request),
            debugger: debugger.name(),
        })
    }

    fn suggest_inputs(
        &self,
        args: SuggestInputsArgs,
        cancel: &Cancel,
    ) -> Result<SuggestInputsOut, ToolError> {
        let tool = "suggest_inputs";
        let verify = args.verify.unwrap_or(false);
        if verify {
            self.require_run("suggest_inputs with verify")?;
        }
        let source = self.load(tool, &args)?;
        let k = args
            .k
            .map_or(DEFAULT_SUGGESTIONS, |k| k.clamp(1, 16) as usize);
        let output = args
            .output
            .as_deref()
            .map(str::trim)
            .filter(|o| !o.is_empty());
        let use_model = args.use_model.unwrap_or(true);
        if !use_model && !verify {
            return Err(ToolError::invalid(
                tool,
                "use_model false leaves only the search, which runs code: set verify true",
            ));
        }
        let debugger = if use_model {
            Some(self.predictor(None)?)
        } else {
            None
        };
        let function = Self::function(&source, &args.function)?;
        let mut request = suggest::Request::new(&args.function, output);
        request.samples = if use_model { k } else { 0 };
        let default = suggest::Budget::default();
        request.budget = suggest::Budget {
            runs: args
                .max_runs
                .map_or(default.runs, |n| n.clamp(1, 256) as usize),
            time: args.max_seconds.map_or(default.time, |s| {
                std::time::Duration::from_secs(u64::from(s.clamp(1, 120)))
            }),
        };
        request.seeds = function
            .entry_calls
            .iter()
            .filter_map(|entry| Seed::from_call(&args.function, &entry.call, entry.origin.as_str()))
            .collect();
        let report = suggest::suggest(
            debugger.as_deref(),
            verify.then_some(&*self.tracer()),
            &source.text,
            &request,
            cancel,
        )
        .map_err(|error| match error {
            SuggestError::Debug(error) => ToolError::Debug(error),
            SuggestError::OutputNotLiteral { .. } => ToolError::invalid(tool, error.to_string()),
            SuggestError::NoSource => ToolError::Suggest(error),
            other => ToolError::Source(other.to_string()),
        })?;
        let suggestions = report
            .suggestions
            .into_iter()
            .map(|s| SuggestionOut {
                entry_call: ops::entry_call(&args.function, &s.input),
                input: s.input,
                origin: s.origin.kind().to_string(),
                from: s.origin.describe(),
                output: s.output,
                votes: s.votes as u32,
                samples: s.samples as u32,
                verified: s.verified,
                actual: s.actual,
                predicted: s.model_check.map(|check| PredictedReturnOut {
                    value: check.predicted.clone(),
                    raised: check.raised,
                    gives_output: check.gives_output,
                    confidence: check.shown_confidence(),
                    verdict: check.verdict().map(str::to_string),
                }),
            })
            .collect();
        Ok(SuggestInputsOut {
            function: args.function,
            output: output.map(str::to_string),
            suggestions,
            runs: report.runs as u32,
            seconds: (report.elapsed.as_secs_f64() * 1000.0).round() / 1000.0,
            stop: report.stop.as_str().to_string(),
            notes: report.notes,
            debugger: debugger.map_or_else(|| "search".to_string(), |d| d.name()),
        })
    }

    fn run_trace(&self, args: RunTraceArgs, cancel: &Cancel) -> Result<RunTraceOut, ToolError> {
        let tool = "run_trace";
        self.require_run(tool)?;
        let source = self.load(tool, &args)?;
        let entry_call = Self::entry_call(tool, &source, &args.entry_call)?;
        let words = args.actions.unwrap_or_default();
        if words.len() > MAX_ACTIONS {
            return Err(ToolError::invalid(
                tool,
                format!("at most {MAX_ACTIONS} actions"),
            ));
        }
        let actions = words
            .iter()
            .map(|word| Action::parse(word))
            .collect::<Result<Vec<_>, _>>()
            .map_err(|error| ToolError::invalid(tool, error.to_string()))?;
        let session = run_actions(&*self.tracer(), &source.text, &entry_call, &actions, cancel)?;
        let tree = self.tracer().tree(&source.text, &entry_call)?;
        let trace = tree.trace();
        let request = LocalsRequest {
            names: args.names.as_deref(),
            all: false,
        };
        let mut previous = &session.start;
        let mut steps = Vec::new();
        for step in &session.steps {
            steps.push(TracedStepOut {
                action: step.action.to_word(),
                state: state_out(&step.state, Some(previous), &source.text, request),
            });
            previous = &step.state;
        }
        let (stdout, _) = bound_value(&trace.stdout, MAX_STDOUT_CHARS);
        Ok(RunTraceOut {
            entry_call,
            status: trace.exit.status.as_str().to_string(),
            value: trace.exit.value.clone(),
            reason: trace.exit.reason.clone(),
            stdout,
            events: trace.events.len() as u32,
            start: state_out(&session.start, None, &source.text, request),
            steps,
            sandbox: SandboxReport::current().summary(),
        })
    }

    fn check_prediction(
        &self,
        args: CheckPredictionArgs,
        cancel: &Cancel,
    ) -> Result<CheckPredictionOut, ToolError> {
        let tool = "check_prediction";
        self.require_run(tool)?;
        if let Some(id) = &args.session_id {
            if args.source.is_some() || args.path.is_some() || args.output.is_some() {
                return Err(ToolError::invalid(
                    tool,
                    "give `session_id` alone, or `source`/`path` with `entry_call` and `output`",
                ));
            }
            let live = self.sessions.get(id).map_err(ToolError::Session)?;
            let predicted = live.lock().clone();
            return self.check_session(&predicted, cancel);
        }
        let (Some(entry_call), Some(output)) = (&args.entry_call, &args.output) else {
            return Err(ToolError::invalid(
                tool,
                "give `session_id`, or `source`/`path` with `entry_call` and `output`",
            ));
        };
        let source = self.load(tool, &args)?;
        let entry_call = Self::entry_call(tool, &source, entry_call)?;
        let tree = self.tracer().tree(&source.text, &entry_call)?;
        let exit = &tree.trace().exit;
        let verified = ops::verify_output(&self.tracer(), &source.text, &entry_call, output.trim());
        Ok(CheckPredictionOut {
            verdict: verdict(verified).to_string(),
            checked: 1,
            first_difference: None,
            real_value: exit.value.clone(),
            real_status: Some(exit.status.as_str().to_string()),
            sandbox: SandboxReport::current().summary(),
        })
    }

    /// Replays a session's actions with the real tracer and compares state
    /// by state.
    fn check_session(
        &self,
        predicted: &Session,
        cancel: &Cancel,
    ) -> Result<CheckPredictionOut, ToolError> {
        let entry_call = predicted
            .entry_call
            .as_deref()
            .ok_or(ndb_inference::debugger::DebugError::NoEntryCall)?;
        let real = run_actions(
            &*self.tracer(),
            &predicted.source,
            entry_call,
            &predicted.actions(),
            cancel,
        )?;
        let pairs = std::iter::once((None, &predicted.start, &real.start)).chain(
            predicted
                .steps
                .iter()
                .zip(&real.steps)
                .map(|(p, r)| (Some(p.action), &p.state, &r.state)),
        );
        let all = LocalsRequest {
            names: None,
            all: true,
        };
        let mut checked = 0;
        let mut first_difference = None;
        for (index, (action, predicted_state, real_state)) in pairs.enumerate() {
            checked += 1;
            if !same_state(predicted_state, real_state) {
                first_difference = Some(Box::new(DifferenceOut {
                    step: index as u32,
                    action: action.map(Action::to_word),
                    predicted: state_out(predicted_state, None, &predicted.source, all),
                    real: state_out(real_state, None, &predicted.source, all),
                }));
                break;
            }
        }
        Ok(CheckPredictionOut {
            verdict: if first_difference.is_some() {
                "differ"
            } else {
                "agree"
            }
            .to_string(),
            checked,
            first_difference,
            real_value: None,
            real_status: None,
            sandbox: SandboxReport::current().summary(),
        })
    }
}

fn verdict(verified: Option<bool>) -> &'static str {
    match verified {
        Some(true) => "agree",
        Some(false) => "differ",
        None => "unknown",
    }
}

fn is_exit(state: &State) -> bool {
    matches!(state.view, Some(StateView::Exit { .. }))
        || matches!(
            state.text.event,
            TextEvent::ExitNormal | TextEvent::ExitError | TextEvent::ExitNever
        )
}

fn is_exit_entry(state: &State) -> bool {
    state.view.is_none() && state.text.event == TextEvent::ExitEntry
}

/// Two states agree when a user would see the same stop: the same view
/// (event, line, depth, locals, value, status) when both have one, else the
/// same text state.
fn same_state(predicted: &State, real: &State) -> bool {
    match (&predicted.view, &real.view) {
        (Some(a), Some(b)) => a == b,
        _ => {
            ndb_grammar::text::normalize_state(&predicted.text)
                == ndb_grammar::text::normalize_state(&real.text)
        }
    }
}

fn session_out(
    id: &str,
    session: &Session,
    action: Option<Action>,
    request: LocalsRequest,
    debugger: &str,
) -> SessionOut {
    let current = session.current();
    let previous = match session.steps.len() {
        0 => None,
        1 => Some(&session.start),
        n => Some(&session.steps[n - 2].state),
    };
    SessionOut {
        session_id: id.to_string(),
        action: action.map(Action::to_word),
        steps: session.steps.len() as u32,
        state: state_out(current, previous, &session.source, request),
        exited: is_exit(current),
        debugger: debugger.to_string(),
    }
}

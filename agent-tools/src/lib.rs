//! The neural debugger as tool calls for coding agents: the only crate that
//! knows MCP. A pure core ([`tools`]: typed arguments in, typed results out)
//! with two thin front ends: the MCP server over stdio ([`run_mcp_stdio`],
//! `ndb mcp`) and one-shot calls for agents without MCP
//! ([`openai_tool_schemas`] for `ndb tools --format openai`,
//! [`call_tool_once`] for `ndb tool NAME --json ARGS`).
//!
//! Module map: `args` and `output` are the tools' contract (their JSON
//! Schemas are generated from them), `catalog` lists the tools with their
//! hints, `python` reads Python files with tree-sitter (functions, entry
//! calls, syntax errors), `view` bounds states for agents, `sessions` keeps
//! the live sessions, `render` writes results as text, `server` speaks MCP.

use std::time::Duration;

use ndb_inference::neural::ModelSpec;
use ndb_inference::tracer::TracerConfig;
use serde_json::Value;

pub mod args;
pub mod catalog;
pub mod error;
pub mod output;
pub mod python;
pub mod render;
pub mod roots;
pub mod server;
pub mod sessions;
pub mod tools;
pub mod view;
pub mod wire;

pub use error::ToolError;
pub use tools::{ToolCall, ToolOutput, Tools};

/// Where predicted states come from: the model (nothing is run), the
/// tracer (predictions made by RUNNING the code; for tests and
/// comparisons) or `auto`; the last two need `allow_run`.
pub use ndb_inference::debugger::Backend;

/// How `ndb mcp` and `ndb tool` are set up.
#[derive(Clone, Debug)]
pub struct ServerConfig {
    /// The model behind predictions, loaded on first use.
    pub model: ModelSpec,
    /// Offer the tools that run the user's code (`run_trace`,
    /// `check_prediction`, `suggest_inputs` with `verify`).
    pub allow_run: bool,
    /// Bounds of the real tracer.
    pub tracer: TracerConfig,
    /// Live sessions at once; the least recently used is closed past it.
    pub max_sessions: usize,
    /// A session unused this long is closed.
    pub idle_timeout: Duration,
    /// Where predictions come from (the model unless asked otherwise).
    pub backend: Backend,
    /// Directories `path` arguments may name besides the client's roots
    /// (or the working directory): `--allow-path`.
    pub allow_paths: Vec<std::path::PathBuf>,
}

impl Default for ServerConfig {
    fn default() -> Self {
        ServerConfig {
            model: ModelSpec::default(),
            allow_run: false,
            tracer: TracerConfig::default(),
            max_sessions: 16,
            idle_timeout: Duration::from_secs(600),
            backend: Backend::Model,
            allow_paths: Vec::new(),
        }
    }
}

/// Settings of a server that contradict each other.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum ConfigError {
    #[error("the {backend} backend runs your code to answer predictions; it needs --allow-run")]
    RunNotAllowed { backend: &'static str },
    #[error("--allow-path {}: not a directory", .0.display())]
    NotADirectory(std::path::PathBuf),
    #[error("at least one session must be allowed")]
    NoSessions,
}

impl ServerConfig {
    /// Refuses settings that contradict each other.
    pub fn check(&self) -> Result<(), ConfigError> {
        if self.backend.runs_code() && !self.allow_run {
            return Err(ConfigError::RunNotAllowed {
                backend: self.backend.name(),
            });
        }
        if let Some(missing) = self.allow_paths.iter().find(|path| !path.is_dir()) {
            return Err(ConfigError::NotADirectory(missing.clone()));
        }
        if self.max_sessions == 0 {
            return Err(ConfigError::NoSessions);
        }
        Ok(())
    }
}

/// Serves the tools over MCP on stdin/stdout until the client disconnects.
/// Blocking: builds its own async runtime. Reserves stdout for the protocol
/// first ([`ndb_inference::stdio::reserve_stdout`]); a front end that has
/// already reserved it calls [`run_mcp`] with the reserved file instead.
pub fn run_mcp_stdio(config: ServerConfig) -> anyhow::Result<()> {
    use anyhow::Context;
    let protocol_out =
        ndb_inference::stdio::reserve_stdout().context("cannot reserve stdout for the protocol")?;
    run_mcp(config, protocol_out)
}

/// Serves the tools over MCP, reading stdin and writing `protocol_out` (the
/// process's original stdout as [`ndb_inference::stdio::reserve_stdout`]
/// returned it), until the client disconnects. Blocking.
pub fn run_mcp(config: ServerConfig, protocol_out: std::fs::File) -> anyhow::Result<()> {
    config.check()?;
    server::run(config, protocol_out)
}

/// The tools a server with default settings and `allow_run` offers, as
/// OpenAI-style function schemas.
pub fn openai_tool_schemas() -> Value {
    catalog::openai_tool_schemas(&ServerConfig {
        allow_run: true,
        ..ServerConfig::default()
    })
}

/// Runs one tool call and returns its structured result (what MCP sends as
/// `structuredContent`). Sessions do not outlive the call, so only the
/// one-shot tools are useful here.
pub fn call_tool_once(config: &ServerConfig, name: &str, args: Value) -> Result<Value, ToolError> {
    config
        .check()
        .map_err(|error| ToolError::invalid(name, error.to_string()))?;
    let tools = Tools::new(config.clone());
    let call = ToolCall::parse(name, args)?;
    let cancel = ndb_inference::debugger::Cancel::new();
    let result =
        std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| tools.call(call, &cancel)))
            .map_err(|payload| ToolError::Internal(server_panic_message(&*payload)))?;
    result.map(|output| output.to_json())
}

fn server_panic_message(payload: &(dyn std::any::Any + Send)) -> String {
    payload
        .downcast_ref::<&str>()
        .map(|s| s.to_string())
        .or_else(|| payload.downcast_ref::<String>().cloned())
        .unwrap_or_else(|| "a panic".to_string())
}

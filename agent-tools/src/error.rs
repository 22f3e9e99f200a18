//! The one error type of a tool call. Every variant is a *tool* error: the
//! MCP server answers it as a result with `isError: true` and the message as
//! text, so the agent reads it and can correct its call; none of them is a
//! protocol error.

use ndb_inference::debugger::DebugError;

#[derive(Debug, thiserror::Error)]
pub enum ToolError {
    #[error("unknown tool `{name}`; the tools are: {known}")]
    UnknownTool { name: String, known: String },
    #[error("invalid arguments for `{tool}`: {message}")]
    InvalidArguments { tool: String, message: String },
    /// The source cannot be read, is too big, does not parse, or does not
    /// have what the call names (a function, a line).
    #[error("{0}")]
    Source(String),
    /// A `path` argument outside the directories the server may read.
    #[error("`{path}` is outside the directories this server may read{}: {allowed}. They are the client's MCP roots, else the server's working directory; the server's user can add one with `ndb mcp --allow-path DIR`", link_note(.resolved))]
    PathOutsideRoots {
        path: String,
        resolved: Option<String>,
        allowed: String,
    },
    /// Unknown, ended, expired or evicted session, or one that cannot take
    /// the step asked.
    #[error(transparent)]
    Session(#[from] crate::sessions::SessionError),
    #[error("`{tool}` runs your code, which this server does not allow; it is enabled by starting the server with --allow-run (`ndb mcp --allow-run`, `ndb tool --allow-run`)")]
    RunNotAllowed { tool: String },
    #[error("the model is not available: {0}. Tools that do not need it (list_functions, run_trace, check_prediction) keep working")]
    Model(ndb_inference::debugger::ModelUnavailable),
    /// Neither a model nor running is allowed: nothing can suggest.
    #[error("{0}; start the server with --allow-run to search by running, or give it a model")]
    Suggest(ndb_inference::suggest::SuggestError),
    #[error(transparent)]
    Debug(#[from] DebugError),
    #[error("the request was cancelled")]
    Cancelled,
    /// A bug: a panic inside the tool, caught at the request boundary.
    #[error("internal error (the server keeps serving): {0}")]
    Internal(String),
}

/// ` (it is a symbolic link that leads to `...`)` when it is one.
fn link_note(resolved: &Option<String>) -> String {
    resolved
        .as_ref()
        .map(|target| format!(" (it is a symbolic link that leads to `{target}`)"))
        .unwrap_or_default()
}

/// The longest error message an agent is sent (a model's cut-off answer
/// can be long); the rest is counted.
pub const MAX_MESSAGE_CHARS: usize = 1_000;

impl ToolError {
    /// The message, bounded to [`MAX_MESSAGE_CHARS`] characters.
    pub fn message(&self) -> String {
        crate::view::bound_value(&self.to_string(), MAX_MESSAGE_CHARS).0
    }

    /// A short stable name of the kind of error, for scripts.
    pub fn kind(&self) -> &'static str {
        match self {
            ToolError::UnknownTool { .. } => "unknown_tool",
            ToolError::InvalidArguments { .. } => "invalid_arguments",
            ToolError::Source(_) => "source",
            ToolError::PathOutsideRoots { .. } => "path_outside_roots",
            ToolError::Session(_) => "session",
            ToolError::RunNotAllowed { .. } => "run_not_allowed",
            ToolError::Model(_) => "model",
            ToolError::Suggest(_) => "model",
            ToolError::Debug(DebugError::Cancelled) | ToolError::Cancelled => "cancelled",
            ToolError::Debug(_) => "debugger",
            ToolError::Internal(_) => "internal",
        }
    }

    pub(crate) fn invalid(tool: &str, message: impl Into<String>) -> ToolError {
        ToolError::InvalidArguments {
            tool: tool.to_string(),
            message: message.into(),
        }
    }
}

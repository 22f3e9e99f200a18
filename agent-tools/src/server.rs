//! The MCP server over stdio (rmcp): converts `tools/list` and `tools/call`
//! at the edge and runs every call of the core ([`crate::tools::Tools`]) on a
//! blocking thread. Every failure of a call, including unknown tools,
//! malformed arguments and panics, is answered as a tool result with
//! `isError: true`, so the agent reads the message and the server keeps
//! serving. stdout carries only protocol messages; logs go to stderr.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use ndb_inference::debugger::Cancel;
use rmcp::model::{
    CallToolRequestParams, CallToolResponse, CallToolResult, ContentBlock, Implementation,
    InitializeResult, ListToolsResult, PaginatedRequestParams, ServerCapabilities, Tool,
    ToolAnnotations,
};
use rmcp::service::{NotificationContext, Peer, RequestContext};
use rmcp::{ErrorData, RoleServer, ServerHandler, ServiceExt};
use serde_json::Value;

use crate::catalog::{tool_specs, ToolSpec};
use crate::error::ToolError;
use crate::render::render;
use crate::tools::{ToolCall, ToolOutput, Tools};
use crate::ServerConfig;

const INSTRUCTIONS: &str = "ndb is a neural debugger for Python: it predicts what pdb would show without running the code. \
Typical use: list_functions to find a function and an entry call; start_session with `entry_call`; step with pdb actions \
(step_over, step_into, step_return, breakpoint with line, continue, and inverse inv_*), comparing each state's variables \
with what the code should do; end_session when done. One-shot: predict_output, predict_at_line, suggest_inputs. \
States show only changed variables by default; ask with `names` for more. Predictions carry `confidence` (0 to 1, measured to mean something) and `verdict`: \
treat a \"guess\" as unverified. run_trace and check_prediction run the code for real and exist only when the server allows it.";

/// Limits the threads that run tool calls; further calls wait their turn.
const MAX_CONCURRENT_CALLS: usize = 8;

/// How long the client is given to answer `roots/list`.
const ROOTS_TIMEOUT: Duration = Duration::from_secs(10);

pub struct NdbServer {
    tools: Arc<Tools>,
    tools_list: Vec<Tool>,
    /// The client's roots must be asked for (again) before the next call
    /// that reads a path: at the start and after `roots/list_changed`.
    roots_stale: AtomicBool,
}

fn mcp_tool(spec: ToolSpec) -> Tool {
    let annotations = ToolAnnotations::with_title(spec.title)
        .read_only(spec.read_only)
        .destructive(false)
        .idempotent(spec.idempotent)
        .open_world(false);
    Tool::new(spec.name, spec.description, Arc::new(spec.input_schema))
        .with_title(spec.title)
        .with_raw_output_schema(Arc::new(spec.output_schema))
        .with_annotations(annotations)
}

impl NdbServer {
    pub fn new(tools: Arc<Tools>) -> NdbServer {
        let tools_list = tool_specs(tools.config())
            .into_iter()
            .map(mcp_tool)
            .collect();
        NdbServer {
            tools,
            tools_list,
            roots_stale: AtomicBool::new(true),
        }
    }

    /// Ask the client for its roots when they may have changed and it
    /// declares them; paths must then lie inside them. (Roots are
    /// deprecated by SEP-2577, but they are what clients declare today.)
    #[allow(deprecated)]
    async fn refresh_roots(&self, peer: &Peer<RoleServer>) {
        if !self.roots_stale.swap(false, Ordering::SeqCst) {
            return;
        }
        let declares_roots = peer
            .peer_info()
            .is_some_and(|info| info.capabilities.roots.is_some());
        if !declares_roots {
            return;
        }
        match tokio::time::timeout(ROOTS_TIMEOUT, peer.list_roots()).await {
            Ok(Ok(listed)) => {
                let paths = self.tools.paths();
                paths.set_client_roots(listed.roots.iter().map(|root| root.uri.as_str()));
                let allowed: Vec<String> = paths
                    .allowed()
                    .iter()
                    .map(|path| path.display().to_string())
                    .collect();
                eprintln!("ndb mcp: paths may lie in {}", allowed.join(", "));
            }
            Ok(Err(error)) => {
                self.roots_stale.store(true, Ordering::SeqCst);
                eprintln!(
                    "ndb mcp: roots/list failed ({error}); paths stay where they were allowed"
                );
            }
            Err(_) => {
                self.roots_stale.store(true, Ordering::SeqCst);
                eprintln!("ndb mcp: the client did not answer roots/list within {ROOTS_TIMEOUT:?}");
            }
        }
    }
}

/// The text of a panic payload.
fn panic_message(payload: &(dyn std::any::Any + Send)) -> String {
    if let Some(text) = payload.downcast_ref::<&str>() {
        text.to_string()
    } else if let Some(text) = payload.downcast_ref::<String>() {
        text.clone()
    } else {
        "a panic".to_string()
    }
}

/// Runs one call on a blocking thread, catching panics; the call is
/// cancelled when `cancelled` finishes first.
pub async fn call_in_background(
    tools: Arc<Tools>,
    name: &str,
    arguments: Value,
    cancelled: impl std::future::Future<Output = ()>,
) -> Result<ToolOutput, ToolError> {
    let call = ToolCall::parse(name, arguments)?;
    let cancel = Cancel::new();
    let task = {
        let cancel = cancel.clone();
        tokio::task::spawn_blocking(move || tools.call(call, &cancel))
    };
    tokio::select! {
        joined = task => match joined {
            Ok(result) => result,
            Err(error) if error.is_panic() => {
                Err(ToolError::Internal(panic_message(&*error.into_panic())))
            }
            Err(error) => Err(ToolError::Internal(error.to_string())),
        },
        () = cancelled => {
            // The debugger checks the flag between and during generations.
            cancel.cancel();
            Err(ToolError::Cancelled)
        }
    }
}

/// The MCP form of a call's result.
pub fn call_tool_result(result: &Result<ToolOutput, ToolError>) -> CallToolResult {
    match result {
        Ok(output) => {
            let mut answer = CallToolResult::structured(output.to_json());
            answer.content = vec![ContentBlock::text(render(output))];
            answer
        }
        Err(error) => CallToolResult::error(vec![ContentBlock::text(format!(
            "error ({}): {}",
            error.kind(),
            error.message()
        ))]),
    }
}

impl ServerHandler for NdbServer {
    fn get_info(&self) -> InitializeResult {
        InitializeResult::new(ServerCapabilities::builder().enable_tools().build())
            .with_server_info(
                Implementation::new("ndb", env!("CARGO_PKG_VERSION"))
                    .with_title("ndb, the neural debugger for Python"),
            )
            .with_instructions(INSTRUCTIONS)
    }

    async fn on_roots_list_changed(&self, _context: NotificationContext<RoleServer>) {
        self.roots_stale.store(true, Ordering::SeqCst);
    }

    async fn list_tools(
        &self,
        _request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListToolsResult, ErrorData> {
        Ok(ListToolsResult::with_all_items(self.tools_list.clone()))
    }

    async fn call_tool(
        &self,
        request: CallToolRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<CallToolResponse, ErrorData> {
        let started = Instant::now();
        let name = request.name.to_string();
        let arguments = Value::Object(request.arguments.unwrap_or_default());
        if arguments.get("path").is_some() {
            self.refresh_roots(&context.peer).await;
        }
        let cancelled = context.ct.clone();
        let result = call_in_background(self.tools.clone(), &name, arguments, async move {
            cancelled.cancelled().await
        })
        .await;
        let outcome = match &result {
            Ok(_) => "ok".to_string(),
            Err(error) => format!("error ({}): {}", error.kind(), error.message()),
        };
        eprintln!(
            "ndb mcp: {name} in {} ms: {outcome}",
            started.elapsed().as_millis()
        );
        Ok(call_tool_result(&result).into())
    }
}

/// Serves MCP, reading stdin and writing `protocol_out` (the process's
/// original stdout, reserved with [`ndb_inference::stdio::reserve_stdout`]
/// so that nothing else in the process, such as mistral.rs printing while it
/// loads a GGUF model, can write a stray byte into the protocol stream),
/// until the client disconnects.
pub fn run(config: ServerConfig, protocol_out: std::fs::File) -> anyhow::Result<()> {
    use anyhow::Context;
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .max_blocking_threads(MAX_CONCURRENT_CALLS)
        .enable_all()
        .build()
        .context("cannot start the async runtime")?;
    let tools = Arc::new(Tools::new(config));
    let result = runtime.block_on(async move {
        let server = NdbServer::new(tools);
        // Our own line check in front of rmcp: non-JSON gets -32700 (see `wire`).
        let (guard, input, output) =
            crate::wire::Guard::start(tokio::io::stdin(), tokio::fs::File::from_std(protocol_out));
        let served = async {
            let service = server
                .serve((input, output))
                .await
                .context("the MCP handshake failed")?;
            service.waiting().await.context("the MCP service stopped")?;
            anyhow::Ok(())
        }
        .await;
        guard.finish().await;
        served
    });
    // Calls still running on blocking threads (a model generation) are not
    // awaited: the client is gone.
    runtime.shutdown_timeout(Duration::from_millis(500));
    eprintln!("ndb mcp: the client disconnected");
    result
}

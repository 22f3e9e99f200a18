//! The neural debugger's language server (`ndb lsp`): predicted locals at
//! neural breakpoints, predicted return values, hovers, entry calls and
//! suggested inputs, for Python files.
//!
//! Layers, from the protocol inwards: `server` and `handlers` (the only code
//! that knows LSP: conversion of positions in the negotiated encoding, one
//! file per request), `engine` (questions answered off the request path,
//! cached, cancellable), `ide` (the features as pure functions of one
//! document version), and the file analysis (`document`, `workspace`, `edits`, and the
//! shared Python reader re-exported as `syntax`, `entry_calls`,
//! `line_index`) in byte offsets and 0-based lines.

pub mod convert;
pub mod document;
pub mod edits;
pub mod handlers;
pub mod ide;
pub mod lsp_ext;
pub mod server;
pub mod session;
pub mod settings;
pub mod wire;
pub mod workspace;

// The one Python reader, shared with the agent tools and the CLI.
pub use ndb_inference::engine;
pub use ndb_inference::python::{entry_calls, line_index, syntax};

use std::sync::Arc;

use ndb_inference::neural::ModelSpec;
use ndb_inference::tracer::TracerConfig;
use tokio::io::{AsyncRead, AsyncWrite};
use tower_lsp_server::{LspService, Server as Transport};

pub use engine::Engine;
pub use server::Server;

/// How `ndb lsp` was started.
#[derive(Clone, Debug, Default)]
pub struct LspConfig {
    /// The model to load (the shipped default when its path is `None`).
    pub model: ModelSpec,
    /// Bounds of the real tracer, used only when the user allows running code.
    pub tracer: TracerConfig,
}

/// Serves the protocol on stdin and stdout until the client exits. Blocks;
/// runs its own tokio runtime. First moves stdout aside for the protocol
/// alone (descriptor 1 becomes stderr for everything else, so a dependency
/// that prints cannot corrupt it). A caller that already reserved stdout
/// (`ndb_inference::stdio::reserve_stdout`) calls [`run`] with that file
/// instead: reserving twice would send the protocol to stderr.
pub fn run_stdio(config: LspConfig) -> anyhow::Result<()> {
    let protocol = ndb_inference::stdio::reserve_stdout()
        .map_err(|error| anyhow::anyhow!("cannot reserve stdout for the protocol: {error}"))?;
    run(config, protocol)
}

/// Serves the protocol on stdin and on `protocol` (the real stdout, already
/// reserved) until the client exits. Blocks; runs its own tokio runtime.
/// Logs go to stderr.
pub fn run(config: LspConfig, protocol: std::fs::File) -> anyhow::Result<()> {
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .max_blocking_threads(8)
        .enable_all()
        .build()?;
    runtime.block_on(async {
        let engine = Engine::new(config.model, config.tracer);
        let output = tokio::fs::File::from_std(protocol);
        // Our own framing in front of the transport: a frame it cannot
        // decode would end the server (see `wire`).
        wire::guarded(tokio::io::stdin(), output, |input, output| {
            serve(input, output, engine, true)
        })
        .await;
    });
    // Blocking threads still predicting must not keep the process alive.
    runtime.shutdown_timeout(std::time::Duration::from_millis(200));
    Ok(())
}

/// Serves the protocol on any pair of streams (tests use in-memory pipes).
/// `load_model`: load the engine's model at `initialized` (an engine made
/// with [`Engine::with_debugger`] already has its answerer).
pub async fn serve<I, O>(input: I, output: O, engine: Arc<Engine>, load_model: bool)
where
    I: AsyncRead + Unpin,
    O: AsyncWrite,
{
    let (service, socket) =
        LspService::build(|client| Server::new(client, engine.clone(), load_model))
            .custom_method("ndb/setBreakpoints", Server::set_breakpoints)
            .finish();
    Transport::new(input, output, socket)
        .concurrency_level(32)
        .serve(service)
        .await;
}

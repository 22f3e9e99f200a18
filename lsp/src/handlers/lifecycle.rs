//! `initialize` and `initialized`: capabilities, the position encoding, the
//! first settings, the workspace's test files, and the model loaded in the
//! background with `$/progress`.

use std::path::PathBuf;
use std::time::Instant;

use tower_lsp_server::jsonrpc::Result;
use tower_lsp_server::ls_types::*;

use crate::line_index::PositionEncoding;
use crate::server::Server;
use crate::session::ClientFlags;
use crate::settings::Settings;
use crate::workspace::{find_test_files, ScanLimits};

pub async fn initialize(server: &Server, params: InitializeParams) -> Result<InitializeResult> {
    let capabilities = &params.capabilities;
    let offered: Vec<String> = capabilities
        .general
        .as_ref()
        .and_then(|general| general.position_encodings.as_ref())
        .map(|encodings| {
            encodings
                .iter()
                .map(|encoding| encoding.as_str().to_string())
                .collect()
        })
        .unwrap_or_default();
    let encoding = PositionEncoding::negotiate(offered.iter().map(String::as_str));
    let workspace = capabilities.workspace.as_ref();
    let window = capabilities.window.as_ref();
    let flags = ClientFlags {
        inlay_hint_refresh: workspace
            .and_then(|workspace| workspace.inlay_hint.as_ref())
            .and_then(|hints| hints.refresh_support)
            .unwrap_or(false),
        code_lens_refresh: workspace
            .and_then(|workspace| workspace.code_lens.as_ref())
            .and_then(|lenses| lenses.refresh_support)
            .unwrap_or(false),
        work_done_progress: window
            .and_then(|window| window.work_done_progress)
            .unwrap_or(false),
        show_message_request: window
            .and_then(|window| window.show_message.as_ref())
            .is_some(),
        configuration: workspace
            .and_then(|workspace| workspace.configuration)
            .unwrap_or(false),
        apply_edit: workspace
            .and_then(|workspace| workspace.apply_edit)
            .unwrap_or(false),
        create_files: workspace
            .and_then(|workspace| workspace.workspace_edit.as_ref())
            .and_then(|edit| edit.resource_operations.as_ref())
            .is_some_and(|operations| operations.contains(&ResourceOperationKind::Create)),
        document_changes: workspace
            .and_then(|workspace| workspace.workspace_edit.as_ref())
            .and_then(|edit| edit.document_changes)
            .unwrap_or(false),
    };
    let (settings, problems) = params
        .initialization_options
        .as_ref()
        .map(Settings::from_json)
        .unwrap_or_default();
    for problem in &problems {
        eprintln!("ndb lsp: ignored setting {problem}");
    }
    let mut roots: Vec<PathBuf> = params
        .workspace_folders
        .iter()
        .flatten()
        .filter_map(|folder| folder.uri.to_file_path().map(|path| path.into_owned()))
        .collect();
    #[allow(deprecated)]
    if roots.is_empty() {
        if let Some(path) = params.root_uri.as_ref().and_then(|uri| uri.to_file_path()) {
            roots.push(path.into_owned());
        }
    }
    server.engine.configure_model(
        settings.model_path.as_ref().map(PathBuf::from),
        settings.model_server.clone(),
        settings.samples,
    );
    if let Some(python) = &settings.python {
        server.engine.set_python(python);
    }
    {
        let mut session = server.session();
        session.encoding = encoding;
        session.client = flags;
        session.settings = settings;
        session.initial_settings = params
            .initialization_options
            .as_ref()
            .map(|options| options.get("neuralDebugger").unwrap_or(options).clone())
            .unwrap_or_default();
        session.roots = roots;
    }
    Ok(InitializeResult {
        capabilities: ServerCapabilities {
            position_encoding: Some(PositionEncodingKind::from(encoding.as_str().to_string())),
            text_document_sync: Some(TextDocumentSyncCapability::Options(
                TextDocumentSyncOptions {
                    open_close: Some(true),
                    change: Some(TextDocumentSyncKind::INCREMENTAL),
                    save: Some(TextDocumentSyncSaveOptions::Supported(true)),
                    ..TextDocumentSyncOptions::default()
                },
            )),
            hover_provider: Some(HoverProviderCapability::Simple(true)),
            code_lens_provider: Some(CodeLensOptions {
                resolve_provider: Some(true),
            }),
            code_action_provider: Some(CodeActionProviderCapability::Simple(true)),
            execute_command_provider: Some(ExecuteCommandOptions {
                commands: crate::lsp_ext::COMMANDS
                    .iter()
                    .map(|command| command.to_string())
                    .collect(),
                work_done_progress_options: WorkDoneProgressOptions::default(),
            }),
            inlay_hint_provider: Some(OneOf::Right(InlayHintServerCapabilities::Options(
                InlayHintOptions {
                    work_done_progress_options: WorkDoneProgressOptions::default(),
                    resolve_provider: Some(true),
                },
            ))),
            ..ServerCapabilities::default()
        },
        server_info: Some(ServerInfo {
            name: "ndb lsp".to_string(),
            version: Some(env!("CARGO_PKG_VERSION").to_string()),
        }),
        ..InitializeResult::default()
    })
}

pub async fn initialized(server: &Server, _: InitializedParams) {
    crate::handlers::configuration::pull(server).await;
    start_test_file_scan(server);
    let uses_tracer = server.session().settings.uses_tracer();
    if !uses_tracer {
        load_model(server).await;
    }
}

/// Parses the workspace's test files on a blocking thread.
pub fn start_test_file_scan(server: &Server) {
    let (roots, enabled) = {
        let session = server.session();
        (session.roots.clone(), session.settings.scan_test_files)
    };
    if !enabled || roots.is_empty() {
        return;
    }
    let session = server.session.clone();
    tokio::task::spawn_blocking(move || {
        let files = find_test_files(&roots, ScanLimits::default());
        let parsed: Vec<_> = files
            .into_iter()
            .filter_map(|path| {
                let text = std::fs::read_to_string(&path).ok()?;
                Some((path, crate::document::DocumentSnapshot::parse(&text)))
            })
            .collect();
        let mut session = session.lock().unwrap_or_else(|poison| poison.into_inner());
        session.test_files = std::sync::Arc::new(parsed);
    });
}

/// Loads the model in the background (once; not at all when the engine was
/// given its answerer), with progress when the client shows it, and says
/// once, clearly, when it cannot be loaded.
pub async fn load_model(server: &Server) {
    if !server.load_model || !server.engine.start_loading() {
        return;
    }
    let progress = server.session().client.work_done_progress;
    let started = Instant::now();
    let token = NumberOrString::String("ndb-model-load".to_string());
    let ongoing = if progress
        && server
            .client
            .create_work_done_progress(token.clone())
            .await
            .is_ok()
    {
        Some(
            server
                .client
                .progress(token, "ndb: loading the neural debugger model")
                .begin()
                .await,
        )
    } else {
        None
    };
    let client = server.client.clone();
    let engine = server.engine.clone();
    let session = server.session.clone();
    tokio::spawn(async move {
        let result = engine.model().await;
        let seconds = started.elapsed().as_secs_f64();
        if let Some(ongoing) = ongoing {
            let message = match &result {
                Ok(_) => format!("loaded in {seconds:.1} s"),
                Err(_) => "failed".to_string(),
            };
            ongoing.finish_with_message(message).await;
        }
        match result {
            Ok(_) => {
                let flags = session
                    .lock()
                    .unwrap_or_else(|poison| poison.into_inner())
                    .client;
                if flags.inlay_hint_refresh {
                    let _ = client.inlay_hint_refresh().await;
                }
            }
            Err(reason) => {
                let first = {
                    let mut session = session.lock().unwrap_or_else(|poison| poison.into_inner());
                    !std::mem::replace(&mut session.model_failure_shown, true)
                };
                eprintln!("ndb lsp: the model could not be loaded: {reason}");
                if first {
                    client
                        .show_message(
                            MessageType::ERROR,
                            format!(
                                "ndb: the neural debugger model could not be loaded: {reason}. \
                                 Predictions are off; breakpoints, entry calls and (with \
                                 neuralDebugger.allowRunningCode) checking by running still work."
                            ),
                        )
                        .await;
                }
            }
        }
    });
}

//! The protocol layer: one [`Server`] implementing tower-lsp-server's
//! `LanguageServer`, delegating each request to a handler in `handlers/`.
//! Every handler runs inside [`guarded`], so a panic answers that request
//! with an error instead of killing the server.

use std::future::Future;
use std::panic::AssertUnwindSafe;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::Duration;

use futures::FutureExt;
use tower_lsp_server::jsonrpc::{Error, Result};
use tower_lsp_server::ls_types::*;
use tower_lsp_server::{Client, LanguageServer};

use crate::engine::{Engine, Key, Observer};
use crate::handlers;
use crate::lsp_ext::SetBreakpointsParams;
use crate::session::Session;

/// The server.
pub struct Server {
    pub client: Client,
    pub session: Arc<Mutex<Session>>,
    pub engine: Arc<Engine>,
    /// Whether the engine should load the model at `initialized`.
    pub load_model: bool,
}

/// Runs a request handler, turning a panic into an internal error.
pub async fn guarded<T>(name: &str, future: impl Future<Output = Result<T>>) -> Result<T> {
    match AssertUnwindSafe(future).catch_unwind().await {
        Ok(result) => result,
        Err(panic) => {
            let message = panic
                .downcast_ref::<String>()
                .cloned()
                .or_else(|| panic.downcast_ref::<&str>().map(|text| text.to_string()))
                .unwrap_or_else(|| "unknown panic".to_string());
            eprintln!("ndb lsp: {name} panicked: {message}");
            let mut error = Error::internal_error();
            error.message = format!("ndb lsp: {name} failed: {message}").into();
            Err(error)
        }
    }
}

/// Runs a notification handler, logging a panic.
pub async fn guarded_notification(name: &str, future: impl Future<Output = ()>) {
    let _ = guarded(name, future.map(Ok)).await;
}

impl Server {
    pub fn new(client: Client, engine: Arc<Engine>, load_model: bool) -> Server {
        let session = Arc::new(Mutex::new(Session::default()));
        engine.set_observer(Arc::new(Notifier {
            client: client.clone(),
            session: Arc::downgrade(&session),
            refresh_pending: Arc::new(AtomicBool::new(false)),
        }));
        Server {
            client,
            session,
            engine,
            load_model,
        }
    }

    /// The session, locked. Never held across an `.await`.
    pub fn session(&self) -> MutexGuard<'_, Session> {
        self.session
            .lock()
            .unwrap_or_else(|poison| poison.into_inner())
    }

    /// Asks the client to re-request hints and lenses (when it can).
    pub async fn refresh(&self) {
        let flags = self.session().client;
        refresh(
            &self.client,
            flags.inlay_hint_refresh,
            flags.code_lens_refresh,
        )
        .await;
    }

    /// The custom notification `ndb/setBreakpoints`.
    pub async fn set_breakpoints(&self, params: SetBreakpointsParams) {
        guarded_notification(
            "ndb/setBreakpoints",
            handlers::breakpoints::set(self, params),
        )
        .await;
    }
}

async fn refresh(client: &Client, hints: bool, lenses: bool) {
    if hints {
        if let Err(error) = client.inlay_hint_refresh().await {
            eprintln!("ndb lsp: inlay hint refresh failed: {error}");
        }
    }
    if lenses {
        let _ = client.code_lens_refresh().await;
    }
}

/// Tells the client about fresh answers and long predictions.
struct Notifier {
    client: Client,
    session: std::sync::Weak<Mutex<Session>>,
    refresh_pending: Arc<AtomicBool>,
}

impl Observer for Notifier {
    fn fresh(&self, key: &Key) {
        let Some(session) = self.session.upgrade() else {
            return;
        };
        let (live, flags) = {
            let session = session.lock().unwrap_or_else(|poison| poison.into_inner());
            (
                session.live_hashes().contains(&key.source_hash),
                session.client,
            )
        };
        // An answer about a text no document has any more changes nothing.
        if !live || self.refresh_pending.swap(true, Ordering::SeqCst) {
            return;
        }
        let client = self.client.clone();
        let pending = self.refresh_pending.clone();
        tokio::spawn(async move {
            // Answers arriving together give one refresh.
            tokio::time::sleep(Duration::from_millis(30)).await;
            pending.store(false, Ordering::SeqCst);
            refresh(&client, flags.inlay_hint_refresh, flags.code_lens_refresh).await;
        });
    }

    fn long_running(&self, id: u64, title: String) {
        let Some(session) = self.session.upgrade() else {
            return;
        };
        if !session
            .lock()
            .unwrap_or_else(|poison| poison.into_inner())
            .client
            .work_done_progress
        {
            return;
        }
        let client = self.client.clone();
        tokio::spawn(async move {
            let token = NumberOrString::String(format!("ndb-prediction-{id}"));
            if client
                .create_work_done_progress(token.clone())
                .await
                .is_ok()
            {
                // The end is sent by `finished` under the same token.
                client
                    .send_notification::<notification::Progress>(ProgressParams {
                        token,
                        value: ProgressParamsValue::WorkDone(WorkDoneProgress::Begin(
                            WorkDoneProgressBegin {
                                title,
                                cancellable: Some(false),
                                message: None,
                                percentage: None,
                            },
                        )),
                    })
                    .await;
            }
        });
    }

    fn finished(&self, id: u64) {
        let client = self.client.clone();
        tokio::spawn(async move {
            // Give the begin a head start; an end before its begin is ignored.
            tokio::time::sleep(Duration::from_millis(20)).await;
            let token = NumberOrString::String(format!("ndb-prediction-{id}"));
            client
                .send_notification::<notification::Progress>(ProgressParams {
                    token,
                    value: ProgressParamsValue::WorkDone(WorkDoneProgress::End(
                        WorkDoneProgressEnd { message: None },
                    )),
                })
                .await;
        });
    }
}

impl LanguageServer for Server {
    async fn initialize(&self, params: InitializeParams) -> Result<InitializeResult> {
        guarded("initialize", handlers::lifecycle::initialize(self, params)).await
    }

    async fn initialized(&self, params: InitializedParams) {
        guarded_notification(
            "initialized",
            handlers::lifecycle::initialized(self, params),
        )
        .await
    }

    async fn shutdown(&self) -> Result<()> {
        self.engine.cancel_all();
        Ok(())
    }

    async fn did_open(&self, params: DidOpenTextDocumentParams) {
        guarded_notification("didOpen", async { handlers::sync::did_open(self, params) }).await
    }

    async fn did_change(&self, params: DidChangeTextDocumentParams) {
        // Applied before the first await: no later message can overtake it.
        guarded_notification("didChange", async {
            handlers::sync::did_change(self, params)
        })
        .await
    }

    async fn did_close(&self, params: DidCloseTextDocumentParams) {
        guarded_notification("didClose", async {
            handlers::sync::did_close(self, params)
        })
        .await
    }

    async fn did_save(&self, params: DidSaveTextDocumentParams) {
        guarded_notification("didSave", handlers::sync::did_save(self, params)).await
    }

    async fn did_change_configuration(&self, params: DidChangeConfigurationParams) {
        guarded_notification(
            "didChangeConfiguration",
            handlers::configuration::did_change(self, params),
        )
        .await
    }

    async fn inlay_hint(&self, params: InlayHintParams) -> Result<Option<Vec<InlayHint>>> {
        guarded("inlayHint", handlers::inlay_hints::inlay_hint(self, params)).await
    }

    async fn inlay_hint_resolve(&self, hint: InlayHint) -> Result<InlayHint> {
        guarded(
            "inlayHint/resolve",
            handlers::inlay_hints::resolve(self, hint),
        )
        .await
    }

    async fn hover(&self, params: HoverParams) -> Result<Option<Hover>> {
        guarded("hover", handlers::hover::hover(self, params)).await
    }

    async fn code_lens(&self, params: CodeLensParams) -> Result<Option<Vec<CodeLens>>> {
        guarded("codeLens", handlers::code_lens::code_lens(self, params)).await
    }

    async fn code_lens_resolve(&self, lens: CodeLens) -> Result<CodeLens> {
        guarded("codeLens/resolve", handlers::code_lens::resolve(self, lens)).await
    }

    async fn code_action(&self, params: CodeActionParams) -> Result<Option<CodeActionResponse>> {
        guarded(
            "codeAction",
            handlers::code_action::code_action(self, params),
        )
        .await
    }

    async fn execute_command(&self, params: ExecuteCommandParams) -> Result<Option<LSPAny>> {
        guarded("executeCommand", handlers::commands::execute(self, params)).await
    }
}

//! A small language client for in-process tests: talks JSON-RPC to
//! `ndb_lsp::serve` over in-memory pipes, answers the server's requests the
//! way an editor would, records everything, and remembers any server request
//! it does not know (a test fails on those).

#![allow(dead_code)]

use std::collections::HashMap;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use ndb_lsp::Engine;
use serde_json::{json, Value};
use tokio::io::{AsyncBufReadExt, AsyncReadExt, AsyncWriteExt, BufReader, DuplexStream, WriteHalf};
use tokio::sync::{oneshot, Notify};

/// What the server sent besides responses.
#[derive(Default)]
pub struct Recorded {
    pub notifications: Vec<(String, Value)>,
    pub requests: Vec<(String, Value)>,
    pub unhandled: Vec<String>,
    pub applied_edits: Vec<Value>,
    pub refreshes: usize,
}

pub struct Client {
    writer: Arc<tokio::sync::Mutex<WriteHalf<DuplexStream>>>,
    pending: Arc<Mutex<HashMap<i64, oneshot::Sender<Value>>>>,
    next_id: Mutex<i64>,
    pub recorded: Arc<Mutex<Recorded>>,
    pub refreshed: Arc<Notify>,
    pub settings: Arc<Mutex<Value>>,
    server: tokio::task::JoinHandle<()>,
}

async fn write_message(writer: &mut WriteHalf<DuplexStream>, message: &Value) {
    let body = serde_json::to_vec(message).unwrap();
    let header = format!("Content-Length: {}\r\n\r\n", body.len());
    writer.write_all(header.as_bytes()).await.unwrap();
    writer.write_all(&body).await.unwrap();
    writer.flush().await.unwrap();
}

impl Client {
    /// Starts a server on `engine` and a client talking to it.
    pub fn start(engine: Arc<Engine>, load_model: bool) -> Client {
        let (client_side, server_side) = tokio::io::duplex(1 << 20);
        let (server_read, server_write) = tokio::io::split(server_side);
        let server = tokio::spawn(ndb_lsp::serve(
            server_read,
            server_write,
            engine,
            load_model,
        ));
        let (client_read, client_write) = tokio::io::split(client_side);
        let pending: Arc<Mutex<HashMap<i64, oneshot::Sender<Value>>>> = Arc::default();
        let recorded: Arc<Mutex<Recorded>> = Arc::default();
        let refreshed = Arc::new(Notify::new());
        let settings = Arc::new(Mutex::new(json!({})));
        let (reply_sender, mut reply_receiver) = tokio::sync::mpsc::unbounded_channel::<Value>();
        let writer = Arc::new(tokio::sync::Mutex::new(client_write));
        {
            let pending = pending.clone();
            let recorded = recorded.clone();
            let refreshed = refreshed.clone();
            let settings = settings.clone();
            tokio::spawn(async move {
                let mut reader = BufReader::new(client_read);
                loop {
                    let mut length = None;
                    loop {
                        let mut line = String::new();
                        if reader.read_line(&mut line).await.unwrap_or(0) == 0 {
                            return;
                        }
                        let line = line.trim_end();
                        if line.is_empty() {
                            break;
                        }
                        if let Some(value) = line.strip_prefix("Content-Length: ") {
                            length = value.parse::<usize>().ok();
                        }
                    }
                    let mut body = vec![0; length.expect("a Content-Length header")];
                    reader.read_exact(&mut body).await.unwrap();
                    let message: Value = serde_json::from_slice(&body).unwrap();
                    let method = message
                        .get("method")
                        .and_then(Value::as_str)
                        .map(str::to_string);
                    match (method, message.get("id").cloned()) {
                        (None, Some(id)) => {
                            if let Some(sender) =
                                pending.lock().unwrap().remove(&id.as_i64().unwrap_or(-1))
                            {
                                let _ = sender.send(message);
                            }
                        }
                        (Some(method), Some(id)) => {
                            let params = message.get("params").cloned().unwrap_or(Value::Null);
                            let result = {
                                let mut recorded = recorded.lock().unwrap();
                                recorded.requests.push((method.clone(), params.clone()));
                                match method.as_str() {
                                    "workspace/configuration" => {
                                        json!([settings.lock().unwrap().clone()])
                                    }
                                    "window/workDoneProgress/create"
                                    | "client/registerCapability"
                                    | "workspace/codeLens/refresh" => Value::Null,
                                    "workspace/inlayHint/refresh" => {
                                        recorded.refreshes += 1;
                                        refreshed.notify_waiters();
                                        Value::Null
                                    }
                                    "workspace/applyEdit" => {
                                        recorded.applied_edits.push(params.clone());
                                        json!({"applied": true})
                                    }
                                    "window/showMessageRequest" => params
                                        .get("actions")
                                        .and_then(|actions| actions.get(0))
                                        .cloned()
                                        .unwrap_or(Value::Null),
                                    other => {
                                        recorded.unhandled.push(other.to_string());
                                        Value::Null
                                    }
                                }
                            };
                            let _ = reply_sender
                                .send(json!({"jsonrpc": "2.0", "id": id, "result": result}));
                        }
                        (Some(method), None) => {
                            let params = message.get("params").cloned().unwrap_or(Value::Null);
                            recorded
                                .lock()
                                .unwrap()
                                .notifications
                                .push((method, params));
                        }
                        (None, None) => {}
                    }
                }
            });
        }
        {
            let writer = writer.clone();
            tokio::spawn(async move {
                while let Some(reply) = reply_receiver.recv().await {
                    write_message(&mut *writer.lock().await, &reply).await;
                }
            });
        }
        Client {
            writer,
            pending,
            next_id: Mutex::new(1),
            recorded,
            refreshed,
            settings,
            server,
        }
    }

    /// Sends a request and waits for its response (panics on timeout).
    pub async fn request(&self, method: &str, params: Value) -> Value {
        let id = self.send_request(method, params).await;
        self.response(id).await
    }

    /// Sends a request; the response is read with [`Client::response`].
    pub async fn send_request(
        &self,
        method: &str,
        params: Value,
    ) -> (i64, oneshot::Receiver<Value>) {
        let id = {
            let mut next = self.next_id.lock().unwrap();
            *next += 1;
            *next
        };
        let (sender, receiver) = oneshot::channel();
        self.pending.lock().unwrap().insert(id, sender);
        let message = json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params});
        write_message(&mut *self.writer.lock().await, &message).await;
        (id, receiver)
    }

    pub async fn response(&self, (id, receiver): (i64, oneshot::Receiver<Value>)) -> Value {
        match tokio::time::timeout(Duration::from_secs(60), receiver).await {
            Ok(Ok(response)) => response,
            _ => panic!("no response to request {id}"),
        }
    }

    pub async fn notify(&self, method: &str, params: Value) {
        let message = json!({"jsonrpc": "2.0", "method": method, "params": params});
        write_message(&mut *self.writer.lock().await, &message).await;
    }

    /// `initialize` with the given client capabilities and options, then
    /// `initialized`.
    pub async fn initialize(
        &self,
        capabilities: Value,
        options: Value,
        root: Option<&str>,
    ) -> Value {
        let response = self
            .request(
                "initialize",
                json!({
                    "processId": null,
                    "rootUri": root,
                    "capabilities": capabilities,
                    "initializationOptions": options,
                }),
            )
            .await;
        self.notify("initialized", json!({})).await;
        response
    }

    pub async fn open(&self, uri: &str, text: &str) {
        self.notify(
            "textDocument/didOpen",
            json!({"textDocument": {"uri": uri, "languageId": "python", "version": 1, "text": text}}),
        )
        .await;
    }

    /// Waits for the next `workspace/inlayHint/refresh` after `since`
    /// refreshes were seen, at most `seconds`; `false` when none came.
    pub async fn wait_for_refresh(&self, since: usize, seconds: u64) -> bool {
        let deadline = tokio::time::Instant::now() + Duration::from_secs(seconds);
        loop {
            let notified = self.refreshed.notified();
            if self.recorded.lock().unwrap().refreshes > since {
                return true;
            }
            if tokio::time::timeout_at(deadline, notified).await.is_err() {
                return false;
            }
        }
    }

    pub fn refreshes(&self) -> usize {
        self.recorded.lock().unwrap().refreshes
    }

    /// Shuts the server down and returns what it sent; fails when it sent a
    /// request this client does not know.
    pub async fn finish(self) -> Recorded {
        let _ = self.request("shutdown", Value::Null).await;
        self.notify("exit", Value::Null).await;
        let _ = tokio::time::timeout(Duration::from_secs(5), self.server).await;
        let recorded = std::mem::take(&mut *self.recorded.lock().unwrap());
        assert!(
            recorded.unhandled.is_empty(),
            "unhandled server requests: {:?}",
            recorded.unhandled
        );
        recorded
    }
}

/// The client capabilities of a modern editor.
pub fn editor_capabilities(encodings: &[&str]) -> Value {
    json!({
        "general": {"positionEncodings": encodings},
        "window": {"workDoneProgress": true, "showMessage": {}},
        "workspace": {
            "applyEdit": true,
            "configuration": true,
            "inlayHint": {"refreshSupport": true},
            "codeLens": {"refreshSupport": true},
            "workspaceEdit": {"documentChanges": true, "resourceOperations": ["create"]},
        },
        "textDocument": {"inlayHint": {"resolveSupport": {"properties": ["tooltip"]}}},
    })
}

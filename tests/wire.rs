//! Any byte on the wire, through the real binaries over stdio: `ndb lsp`
//! and `ndb mcp` answer a frame that is not JSON with a JSON-RPC parse error
//! (-32700, id null) and read on; a header without a length, a huge length
//! and a body cut short get a line on stderr, and the server neither crashes
//! nor hangs. No model is needed (`--model` names none: the servers keep
//! serving what does not need it).

use std::io::{BufRead, BufReader, Read, Write};
use std::process::{Child, ChildStdout, Command, Stdio};
use std::sync::mpsc::{self, Receiver};
use std::time::Duration;

use serde_json::{json, Value};

const WAIT: Duration = Duration::from_secs(60);

fn spawn(args: &[&str]) -> Child {
    Command::new(env!("CARGO_BIN_EXE_ndb"))
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("ndb starts")
}

fn frame(body: &[u8]) -> Vec<u8> {
    let mut bytes = format!("Content-Length: {}\r\n\r\n", body.len()).into_bytes();
    bytes.extend_from_slice(body);
    bytes
}

/// The server's LSP messages, read on a thread.
fn lsp_messages(stdout: ChildStdout) -> Receiver<Value> {
    let (sender, receiver) = mpsc::channel();
    std::thread::spawn(move || {
        let mut reader = BufReader::new(stdout);
        loop {
            let mut length = None;
            loop {
                let mut line = String::new();
                if reader.read_line(&mut line).unwrap_or(0) == 0 {
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
            let mut body = vec![0; length.expect("every frame has a length")];
            if reader.read_exact(&mut body).is_err() {
                return;
            }
            let message = serde_json::from_slice(&body).expect("the server writes JSON");
            if sender.send(message).is_err() {
                return;
            }
        }
    });
    receiver
}

/// The next message that is a response (not a server request or
/// notification).
fn next_response(messages: &Receiver<Value>) -> Value {
    loop {
        let message = messages.recv_timeout(WAIT).expect("the server answers");
        if message.get("method").is_none() {
            return message;
        }
    }
}

fn stderr_of(child: &mut Child) -> String {
    let mut text = String::new();
    child
        .stderr
        .take()
        .unwrap()
        .read_to_string(&mut text)
        .unwrap();
    text
}

fn wait_for_exit(child: &mut Child) -> std::process::ExitStatus {
    let started = std::time::Instant::now();
    loop {
        if let Some(status) = child.try_wait().unwrap() {
            return status;
        }
        if started.elapsed() > WAIT {
            let _ = child.kill();
            panic!("the server did not end");
        }
        std::thread::sleep(Duration::from_millis(20));
    }
}

#[test]
fn the_language_server_answers_frames_that_are_not_json_and_reads_on() {
    let mut child = spawn(&["lsp", "--model", "/nonexistent/ndb-model"]);
    let mut stdin = child.stdin.take().unwrap();
    let messages = lsp_messages(child.stdout.take().unwrap());
    let mut send = |bytes: &[u8]| {
        stdin.write_all(bytes).unwrap();
        stdin.flush().unwrap();
    };

    send(&frame(
        b"{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"initialize\",\"par",
    ));
    let truncated = next_response(&messages);
    assert_eq!(truncated["error"]["code"], -32700, "{truncated}");
    assert_eq!(truncated["id"], Value::Null);

    let initialize = json!({"jsonrpc": "2.0", "id": 2, "method": "initialize",
        "params": {"processId": null, "rootUri": null, "capabilities": {}}});
    send(&frame(initialize.to_string().as_bytes()));
    let initialized = next_response(&messages);
    assert_eq!(initialized["id"], 2, "{initialized}");
    assert!(initialized["result"]["capabilities"].is_object());
    send(&frame(
        br#"{"jsonrpc":"2.0","method":"initialized","params":{}}"#,
    ));

    // A lone surrogate escape is not valid JSON text.
    send(&frame(
        br#"{"jsonrpc":"2.0","id":3,"method":"x","params":{"s":"\ud800"}}"#,
    ));
    let surrogate = next_response(&messages);
    assert_eq!(surrogate["error"]["code"], -32700, "{surrogate}");

    // JSON that is no message: an invalid request, with its id.
    send(&frame(br#"{"id":4,"hello":"world"}"#));
    let invalid = next_response(&messages);
    assert_eq!(
        (invalid["error"]["code"].clone(), invalid["id"].clone()),
        (json!(-32600), json!(4))
    );

    // A header without a length, then a huge length: skipped.
    send(b"Content-Type: application/vscode-jsonrpc; charset=utf-8\r\n\r\n{}");
    send(b"Content-Length: 999999999999\r\n\r\n{\"a\":");
    let hover = json!({"jsonrpc": "2.0", "id": 5, "method": "textDocument/hover",
        "params": {"textDocument": {"uri": "file:///nope.py"}, "position": {"line": 0, "character": 0}}});
    send(&frame(hover.to_string().as_bytes()));
    let answered = next_response(&messages);
    assert_eq!(
        answered["id"], 5,
        "the server reads on after junk: {answered}"
    );

    // A body cut short by the end of the input: the server ends, no hang.
    send(b"Content-Length: 100\r\n\r\n{\"jsonrpc\":");
    drop(stdin);
    let status = wait_for_exit(&mut child);
    let stderr = stderr_of(&mut child);
    assert!(status.success(), "{status}: {stderr}");
    for logged in [
        "answered a message that is not JSON-RPC: Parse error",
        "a message header without Content-Length was skipped",
        "a message of 999999999999 bytes is over the limit",
        "the input ended inside a message (11 of 100 bytes)",
    ] {
        assert!(
            stderr.contains(logged),
            "stderr lacks `{logged}`:\n{stderr}"
        );
    }
}

#[test]
fn the_mcp_server_answers_lines_that_are_not_json_and_reads_on() {
    let mut child = spawn(&["mcp", "--model", "/nonexistent/ndb-model"]);
    let mut stdin = child.stdin.take().unwrap();
    let (sender, messages) = mpsc::channel::<Value>();
    let stdout = child.stdout.take().unwrap();
    std::thread::spawn(move || {
        for line in BufReader::new(stdout).lines() {
            let Ok(line) = line else { return };
            let message = serde_json::from_str(&line).expect("every line of stdout is JSON");
            if sender.send(message).is_err() {
                return;
            }
        }
    });
    let mut send = |line: &str| {
        stdin.write_all(line.as_bytes()).unwrap();
        stdin.write_all(b"\n").unwrap();
        stdin.flush().unwrap();
    };
    let next = || messages.recv_timeout(WAIT).expect("the server answers");

    send("this is not json");
    let parse_error = next();
    assert_eq!(parse_error["error"]["code"], -32700, "{parse_error}");
    assert_eq!(parse_error["id"], Value::Null);

    send(
        &json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
        "protocolVersion": "2025-06-18", "capabilities": {},
        "clientInfo": {"name": "wire-test", "version": "1"}}})
        .to_string(),
    );
    let initialized = next();
    assert_eq!(initialized["id"], 1, "{initialized}");
    send(r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#);

    send(r#"{"jsonrpc":"2.0","id":2,"method":"tools/list","params":{"s":"\ud800"}}"#);
    assert_eq!(next()["error"]["code"], -32700);
    send("42");
    assert_eq!(next()["error"]["code"], -32600);
    send(r#"{"jsonrpc":"2.0","id":3,"method":"tools/li"#);
    assert_eq!(next()["error"]["code"], -32700);

    send(r#"{"jsonrpc":"2.0","id":4,"method":"tools/list"}"#);
    let listed = next();
    assert_eq!(listed["id"], 4, "the server reads on: {listed}");
    assert!(listed["result"]["tools"]
        .as_array()
        .is_some_and(|tools| !tools.is_empty()));

    drop(stdin);
    let status = wait_for_exit(&mut child);
    let stderr = stderr_of(&mut child);
    assert!(status.success(), "{status}: {stderr}");
    assert!(
        stderr.contains("answered a line that is not a JSON-RPC message: Parse error"),
        "{stderr}"
    );
}

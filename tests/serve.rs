//! `ndb serve` and `--server URL`, over real sockets on loopback: the served
//! default model answers `ndb predict`, the MCP server and the language
//! server with the same states and confidences as the model loaded in
//! process; a server that is down, never answers, answers with something
//! that is not JSON, or is not an ndb server is a clear error naming the
//! URL, and nothing hangs.

use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpListener;
use std::path::Path;
use std::process::{Child, Command, Output, Stdio};
use std::time::{Duration, Instant};

use serde_json::Value;

#[path = "mcp/start.rs"]
mod start;

const EXAMPLE_CALL: &str = "mean_of_evens([3, 4, 7, 10])";
const EXAMPLE_ACTIONS: &str = "step_over,breakpoint:13,step_return";

fn root() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

/// `ndb serve --addr 127.0.0.1:0` with the default model, stopped when
/// dropped.
struct Server {
    child: Child,
    url: String,
}

impl Server {
    fn start() -> Server {
        let mut child = Command::new(env!("CARGO_BIN_EXE_ndb"))
            .args(["serve", "--addr", "127.0.0.1:0"])
            .current_dir(root())
            .stdout(Stdio::piped())
            .stderr(Stdio::inherit())
            .spawn()
            .expect("ndb serve starts");
        let mut line = String::new();
        BufReader::new(child.stdout.take().unwrap())
            .read_line(&mut line)
            .unwrap();
        let url = line.trim().to_string();
        assert!(
            url.starts_with("http://127.0.0.1:"),
            "ndb serve printed {line:?}"
        );
        Server { child, url }
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// Runs `ndb ARGS`, failing the test (not hanging it) past `limit`.
fn ndb(args: &[&str], limit: Duration) -> Output {
    let mut child = Command::new(env!("CARGO_BIN_EXE_ndb"))
        .args(args)
        .current_dir(root())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("ndb runs");
    let started = Instant::now();
    while child.try_wait().unwrap().is_none() {
        if started.elapsed() > limit {
            let _ = child.kill();
            panic!("ndb {args:?} still ran after {limit:?}");
        }
        std::thread::sleep(Duration::from_millis(50));
    }
    child.wait_with_output().unwrap()
}

fn predict(extra: &[&str]) -> Output {
    let mut args = vec![
        "predict",
        "examples/quickstart.py",
        "--call",
        EXAMPLE_CALL,
        "--actions",
        EXAMPLE_ACTIONS,
    ];
    args.extend_from_slice(extra);
    ndb(&args, Duration::from_secs(300))
}

fn stdout(output: &Output) -> String {
    assert!(
        output.status.success(),
        "ndb failed: {}",
        String::from_utf8_lossy(&output.stderr)
    );
    String::from_utf8(output.stdout.clone()).unwrap()
}

#[test]
fn a_served_model_answers_the_cli_the_mcp_server_and_the_editor_as_the_loaded_one_does() {
    let server = Server::start();
    let local = stdout(&predict(&[]));
    let served = stdout(&predict(&["--server", &server.url]));
    assert_eq!(
        served, local,
        "the same states and confidences through the server"
    );
    let states: Vec<Value> = local
        .lines()
        .map(|line| serde_json::from_str(line).unwrap())
        .collect();
    assert_eq!(states.len(), 4);

    // The agent tools through the server: the return value the CLI got.
    let answered = start::start_mcp_server(&serde_json::json!({
        "command": env!("CARGO_BIN_EXE_ndb"),
        "args": ["mcp", "--server", server.url],
        "cwd": root(),
        "call": {
            "name": "predict_output",
            "arguments": {
                "path": "examples/quickstart.py",
                "function": "mean_of_evens",
                "input": "[3, 4, 7, 10]",
            },
        },
    }));
    let called = &answered["called"];
    assert!(called.get("error").is_none(), "{answered}");
    let predicted = called.to_string();
    let value = states[3]["value"].as_str().unwrap();
    assert!(
        predicted.contains(value),
        "predict_output says {predicted}, the CLI {value}"
    );

    // The editor through the server: the language client's model checks.
    let output = Command::new("python3")
        .args([
            "-m",
            "pytest",
            "tests/lsp",
            "-q",
            "-rs",
            "-k",
            "default_model",
        ])
        .current_dir(root())
        .env("NDB_BIN", env!("CARGO_BIN_EXE_ndb"))
        .env(
            "NDB_LSP_TEST_ARGS",
            format!("--samples 1 --server {}", server.url),
        )
        .output()
        .expect("python3 runs");
    let text = String::from_utf8_lossy(&output.stdout);
    assert!(
        output.status.success(),
        "{text}\n{}",
        String::from_utf8_lossy(&output.stderr)
    );
    assert!(text.contains("2 passed"), "{text}");
}

/// A socket that serves `answer` to every request, on a thread of its own.
fn fake_server(answer: fn(&str) -> Option<String>) -> String {
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let url = format!("http://{}", listener.local_addr().unwrap());
    std::thread::spawn(move || {
        for stream in listener.incoming() {
            let Ok(mut stream) = stream else { continue };
            std::thread::spawn(move || {
                let mut reader = BufReader::new(stream.try_clone().unwrap());
                let mut request_line = String::new();
                let _ = reader.read_line(&mut request_line);
                let mut length = 0;
                loop {
                    let mut header = String::new();
                    if reader.read_line(&mut header).unwrap_or(0) == 0 || header.trim().is_empty() {
                        break;
                    }
                    if let Some(value) = header.to_ascii_lowercase().strip_prefix("content-length:")
                    {
                        length = value.trim().parse().unwrap_or(0);
                    }
                }
                let mut body = vec![0; length];
                let _ = reader.read_exact(&mut body);
                match answer(&request_line) {
                    Some(response) => {
                        let _ = stream.write_all(response.as_bytes());
                    }
                    // Never answers: holds the connection open.
                    None => std::thread::sleep(Duration::from_secs(600)),
                }
            });
        }
    });
    url
}

fn http(status: &str, body: &str) -> String {
    format!(
        "HTTP/1.1 {status}\r\ncontent-type: application/json\r\ncontent-length: {}\r\nconnection: close\r\n\r\n{body}",
        body.len()
    )
}

/// `ndb predict --server URL` fails, within the limit, saying `needles`.
fn fails_naming(url: &str, extra: &[&str], needles: &[&str]) {
    let mut args = vec!["--server", url];
    args.extend_from_slice(extra);
    let output = predict(&args);
    assert!(
        !output.status.success(),
        "ndb predict succeeded against {url}"
    );
    let message = String::from_utf8_lossy(&output.stderr);
    assert!(message.contains(url), "the error names the URL: {message}");
    for needle in needles {
        assert!(message.contains(needle), "{needle:?} missing: {message}");
    }
}

#[test]
fn a_server_that_is_down_is_a_clear_error_naming_the_url() {
    let port = TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port();
    // The listener is dropped: nothing listens on the port any more.
    fails_naming(
        &format!("http://127.0.0.1:{port}"),
        &[],
        &["cannot be reached"],
    );
}

#[test]
fn a_server_that_never_answers_is_a_timeout_not_a_hang() {
    let url = fake_server(|_| None);
    fails_naming(
        &url,
        &["--server-timeout", "1"],
        &["did not answer within 1 s"],
    );
}

#[test]
fn a_server_that_answers_something_else_is_a_clear_error() {
    // Not JSON where the model list should be.
    let garbage = fake_server(|_| Some(http("200 OK", "<html>hello</html>")));
    fails_naming(&garbage, &[], &["cannot read", "model list"]);
    // Another kind of server: no ndb model list.
    let other = fake_server(|_| Some(http("404 Not Found", "{\"detail\": \"Not Found\"}")));
    fails_naming(&other, &[], &["is not an ndb model server", "ndb serve"]);
    // An ndb model list, then completions that are not completions.
    let broken = fake_server(|request| {
        let body = if request.starts_with("GET /ndb/v1/models") {
            r#"{"ndb": "0.1.0", "name": "m", "forms": "language", "models": [{"id": "language", "name": "m", "context_tokens": 2048, "weight_bytes": 1}]}"#
        } else if request.starts_with("POST /ndb/v1/tokenize") {
            r#"{"tokens": [1]}"#
        } else {
            r#"{"choices": "none"}"#
        };
        Some(http("200 OK", body))
    });
    fails_naming(&broken, &[], &["cannot read", "a completion"]);
}

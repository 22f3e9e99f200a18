//! The fuzz driver of the language server: random message sequences (bogus
//! ranges and positions, wrong parameter types, unknown methods, junk
//! command arguments, huge and non-ASCII text) mixed with frames that are
//! not messages (bodies that are not JSON, lone surrogate escapes, headers
//! without a length, huge lengths, bodies cut short, random bytes), sent
//! through the same framing guard `ndb lsp` runs behind ([`ndb_lsp::wire`]).
//! After each sequence the server must still answer a request, and end on
//! `shutdown` and `exit`. Seeded SplitMix64: a failure names its seed and
//! sequence.
//!
//! A short run is part of the tests. The long run (docs/fuzzing.md):
//! `NDB_FUZZ_SEQUENCES=10000 nice -n 19 cargo test --workspace -j 1 --test fuzz -- --nocapture`

use ndb_inference::debugger::Source;
use std::sync::Arc;
use std::time::{Duration, Instant};

use ndb_grammar::{Action, SplitMix64};
use ndb_inference::debugger::{Cancel, DebugError, Debugger, Session, State};
use ndb_inference::tracer::TracerConfig;
use ndb_lsp::wire::{encode, Frame, FrameReader};
use ndb_lsp::Engine;
use serde_json::{json, Value};
use tokio::io::AsyncWriteExt;
use tokio::sync::mpsc;

const SHORT_RUN: usize = 150;
/// How long the server has to answer the request after a sequence.
const ANSWER_TIMEOUT: Duration = Duration::from_secs(20);

/// A model that answers nothing at once: the fuzz is about the server.
struct Silent;

impl Debugger for Silent {
    fn name(&self) -> String {
        "silent".to_string()
    }
    fn start(&self, _: &Source, _: &str, _: &Cancel) -> Result<State, DebugError> {
        Err(DebugError::NoAnswer)
    }
    fn next(&self, _: &Session, _: Action, _: &Cancel) -> Result<State, DebugError> {
        Err(DebugError::NoAnswer)
    }
}

struct Random(SplitMix64);

impl Random {
    fn below(&mut self, bound: usize) -> usize {
        if bound == 0 {
            0
        } else {
            (self.0.next_u64() % bound as u64) as usize
        }
    }
    fn chance(&mut self, percent: usize) -> bool {
        self.below(100) < percent
    }
    fn pick<'a, T>(&mut self, items: &'a [T]) -> &'a T {
        &items[self.below(items.len())]
    }
    fn number(&mut self) -> Value {
        match self.below(6) {
            0 => json!(-1),
            1 => json!(u32::MAX),
            2 => json!(1e300),
            3 => json!(i64::MIN),
            _ => json!(self.below(40)),
        }
    }
    fn text(&mut self) -> String {
        const PIECES: &[&str] = &[
            "def f(x):\n",
            "    return x\n",
            "    y = [x] * 3\n",
            "f(1)\n",
            "# é ü 🦀\n",
            ">>> f(2)\n",
            "\"\"\"doc\"\"\"\n",
            "\t",
            "\r\n",
            "\u{0}",
            "\u{feff}",
            "(((",
            ":",
            "    def g(*a, **k): yield from a\n",
            "class C:\n",
            "λ = 1\n",
            "\u{10ffff}",
        ];
        let mut text = String::new();
        for _ in 0..self.below(30) {
            let piece = *self.pick(PIECES);
            text.push_str(piece);
        }
        if self.chance(2) {
            text.push_str(&"x = 1\n".repeat(20_000));
        }
        text
    }
    fn any(&mut self, depth: usize) -> Value {
        match self.below(if depth > 2 { 5 } else { 7 }) {
            0 => Value::Null,
            1 => json!(self.chance(50)),
            2 => self.number(),
            3 => json!(self.text()),
            4 => json!(self.pick(&["", "file:///nope.py", "not a uri", "file:///t.py"])),
            5 => Value::Array((0..self.below(4)).map(|_| self.any(depth + 1)).collect()),
            _ => {
                let mut object = serde_json::Map::new();
                for _ in 0..self.below(4) {
                    let key = self
                        .pick(&[
                            "uri",
                            "line",
                            "character",
                            "textDocument",
                            "range",
                            "x",
                            "é",
                        ])
                        .to_string();
                    object.insert(key, self.any(depth + 1));
                }
                Value::Object(object)
            }
        }
    }
    fn position(&mut self) -> Value {
        if self.chance(10) {
            return self.any(1);
        }
        json!({"line": self.number(), "character": self.number()})
    }
    fn range(&mut self) -> Value {
        json!({"start": self.position(), "end": self.position()})
    }
    fn document(&mut self) -> Value {
        if self.chance(10) {
            return self.any(1);
        }
        json!({"uri": self.pick(&["file:///t.py", "file:///u.py", "file:///nope.py"]).to_string()})
    }
}

/// One message of a sequence: a request (with an id) or a notification.
fn message(random: &mut Random, id: i64) -> Value {
    let (method, params, request) = match random.below(16) {
        0 => (
            "textDocument/didOpen",
            json!({"textDocument": {"uri": random.pick(&["file:///t.py", "file:///u.py"]).to_string(), "languageId": "python", "version": random.number(), "text": random.text()}}),
            false,
        ),
        1 | 2 => {
            let change = if random.chance(50) {
                json!({"text": random.text()})
            } else {
                json!({"range": random.range(), "text": random.text()})
            };
            (
                "textDocument/didChange",
                json!({"textDocument": {"uri": "file:///t.py", "version": random.number()}, "contentChanges": [change]}),
                false,
            )
        }
        3 => (
            "textDocument/didClose",
            json!({"textDocument": random.document()}),
            false,
        ),
        4 | 5 => (
            "textDocument/hover",
            json!({"textDocument": random.document(), "position": random.position()}),
            true,
        ),
        6 => (
            "textDocument/inlayHint",
            json!({"textDocument": random.document(), "range": random.range()}),
            true,
        ),
        7 => (
            "textDocument/codeLens",
            json!({"textDocument": random.document()}),
            true,
        ),
        8 => (
            "textDocument/codeAction",
            json!({"textDocument": random.document(), "range": random.range(), "context": {"diagnostics": []}}),
            true,
        ),
        9 => (
            "workspace/executeCommand",
            json!({"command": random.pick(&["ndb.suggestInputs", "ndb.insertTest", "ndb.checkByRunning", "ndb.nope", ""]).to_string(), "arguments": [random.any(0)]}),
            true,
        ),
        10 => (
            "ndb/setBreakpoints",
            json!({"uri": "file:///t.py", "lines": [random.number(), random.number()]}),
            false,
        ),
        11 => (
            "workspace/didChangeConfiguration",
            json!({"settings": {"neuralDebugger": random.any(0)}}),
            false,
        ),
        12 => ("$/cancelRequest", json!({"id": random.number()}), false),
        13 => ("inlayHint/resolve", random.any(0), true),
        14 => ("ndb/nonexistent", random.any(0), random.chance(50)),
        _ => ("textDocument/completion", random.any(0), true),
    };
    let params = if random.chance(5) {
        random.any(0)
    } else {
        params
    };
    if request {
        json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params})
    } else {
        json!({"jsonrpc": "2.0", "method": method, "params": params})
    }
}

/// Bytes that are not a well-formed message.
fn junk(random: &mut Random) -> Vec<u8> {
    match random.below(8) {
        0 => encode(b"{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"textDocument/hover\",\"par"),
        1 => encode(b"{\"jsonrpc\":\"2.0\",\"method\":\"x\",\"params\":{\"s\":\"\\ud800\"}}"),
        2 => b"Content-Type: application/vscode-jsonrpc; charset=utf-8\r\n\r\n{}".to_vec(),
        3 => b"Content-Length: 99999999999999\r\n\r\n{\"a\":".to_vec(),
        4 => format!("Content-Length: {}\r\n\r\n{{\"cut", 20 + random.below(60)).into_bytes(),
        5 => encode(b"[1, 2, 3]"),
        6 => encode(&[0xff, 0xfe, 0x00, 0x80]),
        _ => (0..random.below(200))
            .map(|_| random.0.next_u64() as u8)
            .collect(),
    }
}

/// Runs one sequence against a fresh server; `Err` says what went wrong.
async fn sequence(seed: u64, index: usize) -> Result<(), String> {
    let mut random = Random(SplitMix64::new(
        seed ^ (index as u64).wrapping_mul(0x9E37_79B9),
    ));
    let engine = Engine::with_debugger(Arc::new(Silent), TracerConfig::default());
    let (client_side, server_side) = tokio::io::duplex(1 << 20);
    let (server_read, server_write) = tokio::io::split(server_side);
    let server = tokio::spawn(ndb_lsp::wire::guarded(
        server_read,
        server_write,
        move |input, output| ndb_lsp::serve(input, output, engine, false),
    ));
    let (client_read, mut client_write) = tokio::io::split(client_side);
    let (replies, mut replies_out) = mpsc::unbounded_channel::<Vec<u8>>();
    let (answers, mut answered) = mpsc::unbounded_channel::<Value>();
    // The client's reader: answers the server's requests as an editor
    // would (null), passes responses on.
    let reader = tokio::spawn(async move {
        let mut frames = FrameReader::new(tokio::io::BufReader::new(client_read), |_| {});
        while let Ok(Frame::Body(body)) = frames.next().await {
            let Ok(message) = serde_json::from_slice::<Value>(&body) else {
                let _ = answers.send(json!({"unreadable": String::from_utf8_lossy(&body)}));
                continue;
            };
            if message.get("method").is_some() {
                if let Some(id) = message.get("id") {
                    let reply = json!({"jsonrpc": "2.0", "id": id, "result": null});
                    let _ = replies.send(encode(reply.to_string().as_bytes()));
                }
            } else {
                let _ = answers.send(message);
            }
        }
    });
    let mut outgoing = Vec::new();
    let capabilities = if random.chance(20) {
        random.any(0)
    } else {
        json!({})
    };
    let options = if random.chance(30) {
        random.any(0)
    } else {
        json!({})
    };
    let initialize = json!({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {
        "processId": null, "rootUri": null, "capabilities": capabilities,
        "initializationOptions": options}});
    outgoing.push(encode(initialize.to_string().as_bytes()));
    outgoing.push(encode(
        br#"{"jsonrpc":"2.0","method":"initialized","params":{}}"#,
    ));
    for id in 1..=random.below(25) as i64 {
        if random.chance(15) {
            outgoing.push(junk(&mut random));
        } else {
            outgoing.push(encode(message(&mut random, id).to_string().as_bytes()));
        }
    }
    // Bytes a body cut short may still swallow, then the last request.
    outgoing.push(format!("{}\r\n", " ".repeat(128)).into_bytes());
    const LAST: i64 = 1_000_000;
    let last = json!({"jsonrpc": "2.0", "id": LAST, "method": "textDocument/hover",
        "params": {"textDocument": {"uri": "file:///t.py"}, "position": {"line": 0, "character": 0}}});
    outgoing.push(encode(last.to_string().as_bytes()));
    if std::env::var_os("NDB_FUZZ_SHOW").is_some() {
        for frame in &outgoing {
            let text = String::from_utf8_lossy(frame);
            eprintln!("-> {:.400}", text.escape_debug());
        }
    }
    for frame in &outgoing {
        while let Ok(reply) = replies_out.try_recv() {
            client_write
                .write_all(&reply)
                .await
                .map_err(|e| e.to_string())?;
        }
        client_write
            .write_all(frame)
            .await
            .map_err(|e| format!("the server stopped reading: {e}"))?;
    }
    let timeout = std::env::var("NDB_FUZZ_TIMEOUT_S")
        .ok()
        .and_then(|text| text.parse().ok())
        .map_or(ANSWER_TIMEOUT, Duration::from_secs);
    let deadline = Instant::now() + timeout;
    loop {
        let wait = deadline.saturating_duration_since(Instant::now());
        tokio::select! {
            reply = replies_out.recv() => {
                if let Some(reply) = reply {
                    let _ = client_write.write_all(&reply).await;
                }
            }
            answer = tokio::time::timeout(wait, answered.recv()) => match answer {
                Err(_) => return Err(format!("no answer to the last request within {timeout:?}")),
                Ok(None) => return Err("the server closed its output before answering".to_string()),
                Ok(Some(answer)) if answer.get("unreadable").is_some() => {
                    return Err(format!("the server wrote a frame that is not JSON: {answer}"))
                }
                Ok(Some(answer)) if answer["id"] == json!(LAST) => break,
                Ok(Some(_)) => {}
            },
        }
    }
    for end in [
        json!({"jsonrpc": "2.0", "id": LAST + 1, "method": "shutdown"}),
        json!({"jsonrpc": "2.0", "method": "exit"}),
    ] {
        let _ = client_write
            .write_all(&encode(end.to_string().as_bytes()))
            .await;
    }
    match tokio::time::timeout(ANSWER_TIMEOUT, server).await {
        Ok(Ok(())) => {}
        Ok(Err(error)) => return Err(format!("the server panicked: {error}")),
        Err(_) => return Err("the server did not end after shutdown and exit".to_string()),
    }
    reader.abort();
    Ok(())
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_server_answers_after_any_sequence_of_messages_and_junk() {
    let sequences = std::env::var("NDB_FUZZ_SEQUENCES")
        .ok()
        .and_then(|text| text.parse().ok())
        .unwrap_or(SHORT_RUN);
    let seed = std::env::var("NDB_FUZZ_SEED")
        .ok()
        .and_then(|text| text.parse().ok())
        .unwrap_or(16);
    // `NDB_FUZZ_FROM=I` replays from sequence I (with `NDB_FUZZ_SEQUENCES=I+1`: that one).
    let from = std::env::var("NDB_FUZZ_FROM")
        .ok()
        .and_then(|text| text.parse().ok())
        .unwrap_or(0);
    let started = Instant::now();
    for index in from..sequences {
        if let Err(problem) = sequence(seed, index).await {
            panic!("sequence {index} of seed {seed}: {problem}");
        }
    }
    eprintln!(
        "lsp fuzz: {} sequences from seed {seed} in {:.1} s, the server answered after every one",
        sequences.saturating_sub(from),
        started.elapsed().as_secs_f64()
    );
}

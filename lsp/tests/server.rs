//! The whole server in process, driven by a test client over in-memory
//! pipes, with the stand-in model (the real tracer, 3 of 4 samples agreeing):
//! protocol shapes, exact positions in each encoding, refresh after fresh
//! answers, rapid edits, cancellation, syntax errors, a panicking model, a
//! missing model. Every test fails if the server sends a request an editor
//! would not know.

mod support;

use ndb_inference::debugger::Source;
use std::sync::Arc;
use std::time::{Duration, Instant};

use ndb_grammar::{Action, EventKind, StateView, TextEvent, TextState};
use ndb_inference::debugger::{Cancel, Confidence, DebugError, Debugger, Session, State};
use ndb_inference::neural::ModelSpec;
use ndb_inference::tracer::TracerConfig;
use ndb_lsp::Engine;
use serde_json::{json, Value};
use support::client::{editor_capabilities, Client};
use support::{Fixture, StandInModel};

const URI: &str = "file:///workspace/unicode.py";

fn stand_in_engine() -> Arc<Engine> {
    Engine::with_debugger(Arc::new(StandInModel::new()), TracerConfig::default())
}

/// Hint labels and positions, compactly.
fn hints_text(response: &Value) -> String {
    response["result"]
        .as_array()
        .map(|hints| {
            hints
                .iter()
                .map(|hint| {
                    format!(
                        "{}:{} {}",
                        hint["position"]["line"], hint["position"]["character"], hint["label"]
                    )
                })
                .collect::<Vec<_>>()
                .join("\n")
        })
        .unwrap_or_else(|| format!("no hints: {response}"))
}

fn whole_file() -> Value {
    json!({"start": {"line": 0, "character": 0}, "end": {"line": 1_000_000, "character": 0}})
}

/// Requests hints until they hold no placeholder (answers arrive, the
/// server asks for a refresh, the client asks again).
async fn settled_hints(client: &Client, uri: &str) -> Value {
    let deadline = Instant::now() + Duration::from_secs(60);
    loop {
        let seen = client.refreshes();
        let response = client
            .request(
                "textDocument/inlayHint",
                json!({"textDocument": {"uri": uri}, "range": whole_file()}),
            )
            .await;
        let text = hints_text(&response);
        if !text.contains(ndb_lsp::ide::PENDING) && !text.is_empty() {
            return response;
        }
        assert!(Instant::now() < deadline, "hints never settled: {text}");
        client.wait_for_refresh(seen, 5).await;
    }
}

async fn started(encodings: &[&str], options: Value) -> Client {
    let client = Client::start(stand_in_engine(), false);
    client
        .initialize(editor_capabilities(encodings), options, None)
        .await;
    client
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn hints_arrive_with_a_refresh_at_exact_utf16_positions() {
    let client = started(&["utf-16"], json!({})).await;
    let fixture = Fixture::load("unicode.py");
    client.open(URI, &fixture.text).await;
    client
        .notify("ndb/setBreakpoints", json!({"uri": URI, "lines": [4]}))
        .await;
    let first = client
        .request(
            "textDocument/inlayHint",
            json!({"textDocument": {"uri": URI}, "range": whole_file()}),
        )
        .await;
    // Nothing is predicted on the request path: a placeholder first.
    assert!(hints_text(&first).contains("≈ ⋯"), "{first}");
    let settled = settled_hints(&client, URI).await;
    let hint = settled["result"][0].clone();
    let resolved = client.request("inlayHint/resolve", hint).await;
    let recorded = client.finish().await;
    assert!(recorded.refreshes >= 1);
    let mut out = hints_text(&settled);
    out.push_str("\n== resolved tooltip\n");
    out.push_str(
        resolved["result"]["tooltip"]["value"]
            .as_str()
            .unwrap_or("(none)"),
    );
    insta::assert_snapshot!(out);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn utf8_and_utf32_are_negotiated_when_offered() {
    for (encoding, column) in [("utf-8", 57), ("utf-16", 51), ("utf-32", 51)] {
        let client = started(&[encoding], json!({})).await;
        let response = client.request("shutdown", Value::Null).await;
        assert!(response.get("error").is_none());
        let client = started(&[encoding], json!({})).await;
        let fixture = Fixture::load("unicode.py");
        client.open(URI, &fixture.text).await;
        client
            .notify("ndb/setBreakpoints", json!({"uri": URI, "lines": [4]}))
            .await;
        let settled = settled_hints(&client, URI).await;
        // Line 5's end: `    return f"{emoji} {名前} {größe}"  # <- breakpoint`.
        assert_eq!(
            settled["result"][0]["position"],
            json!({"line": 4, "character": column}),
            "{encoding}"
        );
        client.finish().await;
    }
    let client = Client::start(stand_in_engine(), false);
    let response = client
        .initialize(editor_capabilities(&["utf-8"]), json!({}), None)
        .await;
    assert_eq!(
        response["result"]["capabilities"]["positionEncoding"],
        "utf-8"
    );
    client.finish().await;
    let client = Client::start(stand_in_engine(), false);
    let response = client.initialize(json!({}), json!({}), None).await;
    assert_eq!(
        response["result"]["capabilities"]["positionEncoding"],
        "utf-16"
    );
    client.finish().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn hover_shows_the_predicted_value_with_confidence() {
    let client = started(&["utf-16"], json!({})).await;
    let fixture = Fixture::load("unicode.py");
    client.open(URI, &fixture.text).await;
    // Inside `größe` on line 5 (UTF-16 columns 27 to 32).
    let hover = client
        .request(
            "textDocument/hover",
            json!({"textDocument": {"uri": URI}, "position": {"line": 4, "character": 30}}),
        )
        .await;
    client.finish().await;
    let value = hover["result"]["contents"]["value"]
        .as_str()
        .unwrap_or_default()
        .to_string();
    assert!(value.contains("**größe** ≈ `9`"), "{hover}");
    assert!(value.contains("3 of 4 samples agree"), "{hover}");
    assert_eq!(
        hover["result"]["range"],
        json!({"start": {"line": 4, "character": 27}, "end": {"line": 4, "character": 32}})
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn breakpoints_by_code_action_and_command_move_with_edits() {
    let client = started(&["utf-16"], json!({})).await;
    let fixture = Fixture::load("accumulate.py");
    let uri = "file:///workspace/accumulate.py";
    client.open(uri, &fixture.text).await;
    let actions = client
        .request(
            "textDocument/codeAction",
            json!({"textDocument": {"uri": uri}, "range": {"start": {"line": 10, "character": 0}, "end": {"line": 10, "character": 0}}, "context": {"diagnostics": []}}),
        )
        .await;
    let first = &actions["result"][0];
    assert_eq!(first["title"], "Neural breakpoint here");
    let toggled = client
        .request("workspace/executeCommand", first["command"].clone())
        .await;
    assert_eq!(toggled["result"]["lines"], json!([10]));
    // Two lines inserted above: the breakpoint follows its code.
    client
        .notify(
            "textDocument/didChange",
            json!({"textDocument": {"uri": uri, "version": 2}, "contentChanges": [
                {"range": {"start": {"line": 6, "character": 0}, "end": {"line": 6, "character": 0}}, "text": "    # one\n    # two\n"}
            ]}),
        )
        .await;
    let settled = settled_hints(&client, uri).await;
    client.finish().await;
    let text = hints_text(&settled);
    assert!(text.starts_with("12:"), "{text}");
    assert!(text.contains("total = 3, partial = []"), "{text}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn rapid_edits_cancel_stale_work_and_only_the_last_text_is_answered() {
    let engine = stand_in_engine();
    let client = Client::start(engine.clone(), false);
    client
        .initialize(
            editor_capabilities(&["utf-16"]),
            json!({"debounceMs": 100}),
            None,
        )
        .await;
    let uri = "file:///workspace/rapid.py";
    client
        .open(uri, "# ndb: f(0)\ndef f(x):\n    y = x + 0\n    return y\n")
        .await;
    client
        .notify("ndb/setBreakpoints", json!({"uri": uri, "lines": [3]}))
        .await;
    for version in 1..=20 {
        client
            .notify(
                "textDocument/didChange",
                json!({"textDocument": {"uri": uri, "version": version + 1}, "contentChanges": [
                    {"range": {"start": {"line": 2, "character": 12}, "end": {"line": 2, "character": 13}}, "text": format!("{}", version % 10)}
                ]}),
            )
            .await;
        // An editor asks for hints after each edit.
        client
            .request(
                "textDocument/inlayHint",
                json!({"textDocument": {"uri": uri}, "range": whole_file()}),
            )
            .await;
    }
    let settled = settled_hints(&client, uri).await;
    client.finish().await;
    assert!(hints_text(&settled).contains("y = 0"), "{settled}");
    let answered = engine.answered();
    assert!(
        answered < 5,
        "{answered} questions were answered for 20 quick edits"
    );
}

/// Opens `source` with a breakpoint on line 3 (0-based), waits for its
/// hints, then breaks the code (` +` inserted at `(line, character)`):
/// the settled hints and the hints right after the break.
async fn hints_before_and_after_a_break(
    client: &Client,
    uri: &str,
    source: &str,
    (line, character): (u32, u32),
) -> (Value, Value) {
    client.open(uri, source).await;
    client
        .notify("ndb/setBreakpoints", json!({"uri": uri, "lines": [3]}))
        .await;
    let good = settled_hints(client, uri).await;
    client
        .notify(
            "textDocument/didChange",
            json!({"textDocument": {"uri": uri, "version": 2}, "contentChanges": [
                {"range": {"start": {"line": line, "character": character}, "end": {"line": line, "character": character}}, "text": " +"}
            ]}),
        )
        .await;
    let broken = client
        .request(
            "textDocument/inlayHint",
            json!({"textDocument": {"uri": uri}, "range": whole_file()}),
        )
        .await;
    (good, broken)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn syntax_errors_keep_the_last_hints_marked_stale() {
    let client = started(&["utf-16"], json!({})).await;
    let uri = "file:///workspace/typing.py";
    let source = "# ndb: f(2)\ndef f(x):\n    y = x * 2\n    return y\n";
    let (good, broken) = hints_before_and_after_a_break(&client, uri, source, (2, 13)).await;
    let lenses = client
        .request(
            "textDocument/codeLens",
            json!({"textDocument": {"uri": uri}}),
        )
        .await;
    client.finish().await;
    assert!(hints_text(&good).contains("y = 4"), "{good}");
    let text = hints_text(&broken);
    assert!(
        text.contains("y = 4") && text.contains(ndb_lsp::ide::PENDING),
        "{text}"
    );
    assert_eq!(lenses["result"].as_array().map(Vec::len), Some(3));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_label_cut_to_its_length_keeps_the_pending_mark() {
    let client = started(&["utf-16"], json!({"inlayHints": {"maxLength": 16}})).await;
    let uri = "file:///workspace/long.py";
    let source = "# ndb: f(2)\ndef f(x):\n    a_long_name = x * 2\n    return a_long_name\n";
    let (good, broken) = hints_before_and_after_a_break(&client, uri, source, (2, 23)).await;
    client.finish().await;
    let good = hints_text(&good);
    assert!(good.contains('…') && good.contains("x = 2"), "{good}");
    // Every hint, the cut one too, says a new answer is coming.
    let text = hints_text(&broken);
    let hints = broken["result"].as_array().cloned().unwrap_or_default();
    assert_eq!(hints.len(), 2, "{text}");
    for hint in hints {
        let label = hint["label"].as_str().unwrap_or_default();
        assert!(label.ends_with(ndb_lsp::ide::PENDING), "{text}");
        assert!(label.chars().count() <= 16, "{label}");
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_cancelled_request_is_answered_as_cancelled_and_the_server_goes_on() {
    let client = started(&["utf-16"], json!({"hover": {"waitMs": 20000}})).await;
    let uri = "file:///workspace/slow.py";
    client
        .open(
            uri,
            "import time\n# ndb: f(1)\ndef f(x):\n    time.sleep(1.5)\n    y = x\n    return y\n",
        )
        .await;
    let pending = client
        .send_request(
            "textDocument/hover",
            json!({"textDocument": {"uri": uri}, "position": {"line": 4, "character": 4}}),
        )
        .await;
    let id = pending.0;
    tokio::time::sleep(Duration::from_millis(100)).await;
    client.notify("$/cancelRequest", json!({"id": id})).await;
    let cancelled = client.response(pending).await;
    assert_eq!(cancelled["error"]["code"], -32800, "{cancelled}");
    let lenses = client
        .request(
            "textDocument/codeLens",
            json!({"textDocument": {"uri": uri}}),
        )
        .await;
    assert!(lenses["result"].is_array());
    client.finish().await;
}

/// A model that panics on every question.
struct PanickingModel;

impl Debugger for PanickingModel {
    fn name(&self) -> String {
        "a broken model".into()
    }

    fn start(&self, _: &Source, _: &str, _: &Cancel) -> Result<State, DebugError> {
        panic!("the model fell over")
    }

    fn next(&self, _: &Session, _: Action, _: &Cancel) -> Result<State, DebugError> {
        panic!("the model fell over")
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_panicking_model_gives_an_error_not_a_dead_server() {
    let engine = Engine::with_debugger(Arc::new(PanickingModel), TracerConfig::default());
    let client = Client::start(engine, false);
    client
        .initialize(editor_capabilities(&["utf-16"]), json!({}), None)
        .await;
    let uri = "file:///workspace/broken.py";
    client
        .open(uri, "# ndb: f(1)\ndef f(x):\n    return x\n")
        .await;
    client
        .notify("ndb/setBreakpoints", json!({"uri": uri, "lines": [2]}))
        .await;
    let settled = settled_hints(&client, uri).await;
    let resolved = client
        .request("inlayHint/resolve", settled["result"][0].clone())
        .await;
    client.finish().await;
    assert!(hints_text(&settled).contains("≈ ?"), "{settled}");
    let tooltip = resolved["result"]["tooltip"]["value"]
        .as_str()
        .unwrap_or_default();
    assert!(tooltip.contains("internal error"), "{tooltip}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_missing_or_broken_model_is_reported_once_and_the_rest_keeps_working() {
    let broken = std::env::temp_dir().join(format!("ndb-lsp-broken-{}.gguf", std::process::id()));
    std::fs::write(&broken, b"GGUF but not really a model").unwrap();
    for path in [
        std::path::PathBuf::from("/nonexistent/model.gguf"),
        broken.clone(),
    ] {
        let spec = ModelSpec {
            path: Some(path.clone()),
            ..ModelSpec::default()
        };
        let client = Client::start(Engine::new(spec, TracerConfig::default()), true);
        client
            .initialize(editor_capabilities(&["utf-16"]), json!({}), None)
            .await;
        let uri = "file:///workspace/nomodel.py";
        client
            .open(uri, "# ndb: f(1)\ndef f(x):\n    return x\n")
            .await;
        client
            .notify("ndb/setBreakpoints", json!({"uri": uri, "lines": [2]}))
            .await;
        // Wait for the failure to be reported, then ask twice.
        let deadline = Instant::now() + Duration::from_secs(60);
        while !client
            .recorded
            .lock()
            .unwrap()
            .notifications
            .iter()
            .any(|(method, params)| method == "window/showMessage" && params["type"] == 1)
        {
            assert!(Instant::now() < deadline, "{path:?}: no error message");
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
        let mut hints = Value::Null;
        for _ in 0..2 {
            hints = client
                .request(
                    "textDocument/inlayHint",
                    json!({"textDocument": {"uri": uri}, "range": whole_file()}),
                )
                .await;
        }
        let lenses = client
            .request(
                "textDocument/codeLens",
                json!({"textDocument": {"uri": uri}}),
            )
            .await;
        let recorded = client.finish().await;
        assert_eq!(hints["result"], json!([]), "{path:?}");
        assert_eq!(lenses["result"].as_array().map(Vec::len), Some(3));
        let errors: Vec<_> = recorded
            .notifications
            .iter()
            .filter(|(method, params)| method == "window/showMessage" && params["type"] == 1)
            .collect();
        assert_eq!(errors.len(), 1, "{path:?}: {errors:?}");
        assert!(errors[0].1["message"]
            .as_str()
            .unwrap()
            .contains("could not be loaded"));
    }
    let _ = std::fs::remove_file(broken);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_accepted_suggestion_is_inserted_as_a_doctest_only_on_request() {
    let client = started(&["utf-16"], json!({"allowRunningCode": true})).await;
    let uri = "file:///workspace/double.py";
    let text = "def double(x):\n    \"\"\"Twice x.\"\"\"\n    return x * 2\n";
    client.open(uri, text).await;
    let lenses = client
        .request(
            "textDocument/codeLens",
            json!({"textDocument": {"uri": uri}}),
        )
        .await;
    assert!(client.recorded.lock().unwrap().applied_edits.is_empty());
    let result = client
        .request(
            "workspace/executeCommand",
            json!({"command": "ndb.insertSuggestion", "arguments": [{"uri": uri, "function": "double", "input": "21", "style": "doctest"}]}),
        )
        .await;
    let recorded = client.finish().await;
    assert_eq!(
        lenses["result"].as_array().map(Vec::len),
        Some(4),
        "{lenses}"
    );
    assert_eq!(result["result"]["applied"], true, "{result}");
    assert_eq!(result["result"]["verified"], true, "{result}");
    assert_eq!(recorded.applied_edits.len(), 1);
    insta::assert_snapshot!(serde_json::to_string_pretty(&recorded.applied_edits[0]).unwrap());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_ten_thousand_line_file_stays_responsive() {
    let client = started(&["utf-16"], json!({})).await;
    let uri = "file:///workspace/long.py";
    let mut text = String::new();
    for index in 0..2_500 {
        text.push_str(&format!(
            "def f{index}(x):\n    y = x + {index}\n    return y\n\n"
        ));
    }
    text.push_str("# ndb: last(1)\ndef last(x):\n    \"🐍\"\n    return x\n");
    let line = text.lines().count() - 1;
    let started = Instant::now();
    client.open(uri, &text).await;
    client
        .notify("ndb/setBreakpoints", json!({"uri": uri, "lines": [line]}))
        .await;
    client
        .notify(
            "textDocument/didChange",
            json!({"textDocument": {"uri": uri, "version": 2}, "contentChanges": [
                {"range": {"start": {"line": 1, "character": 4}, "end": {"line": 1, "character": 4}}, "text": "z = 1\n    "}
            ]}),
        )
        .await;
    let lenses = client
        .request(
            "textDocument/codeLens",
            json!({"textDocument": {"uri": uri}}),
        )
        .await;
    let elapsed = started.elapsed();
    let settled = settled_hints(&client, uri).await;
    client.finish().await;
    assert_eq!(lenses["result"].as_array().map(Vec::len), Some(3 * 2_501));
    assert!(
        elapsed < Duration::from_secs(10),
        "open, edit and lenses took {elapsed:?}"
    );
    assert!(hints_text(&settled).contains("x = 1"), "{settled}");
}

/// The stand-in model plus inverse answers: stepping back from the end gives
/// the return of `[2, 1]`, and from there the call `countdown(2)` (3 of 4
/// samples) or `countdown(5)` (1 of 4).
struct SuggestingModel(StandInModel);

impl Debugger for SuggestingModel {
    fn name(&self) -> String {
        "the suggesting stand-in".into()
    }

    fn start(
        &self,
        source: &Source,
        entry_call: &str,
        cancel: &Cancel,
    ) -> Result<State, DebugError> {
        self.0.start(source, entry_call, cancel)
    }

    fn next(
        &self,
        session: &Session,
        action: Action,
        cancel: &Cancel,
    ) -> Result<State, DebugError> {
        self.0.next(session, action, cancel)
    }

    fn candidates(
        &self,
        session: &Session,
        action: Action,
        _k: usize,
        cancel: &Cancel,
    ) -> Result<Vec<State>, DebugError> {
        let state =
            |event, kind, line, locals: Vec<(String, String)>, value: Option<&str>, votes| State {
                text: TextState {
                    event,
                    inverse: true,
                    src: String::new(),
                    locals: locals.clone(),
                    value: value.map(str::to_string),
                },
                view: Some(StateView::Event {
                    kind,
                    line,
                    depth: 0,
                    locals: (!locals.is_empty()).then_some(locals),
                    value: value.map(str::to_string),
                }),
                confidence: Some(Confidence {
                    votes,
                    samples: 4,
                    probability: None,
                }),
                note: None,
            };
        match action {
            Action::InvStepInto => Ok(vec![state(
                TextEvent::Return,
                EventKind::Return,
                8,
                vec![],
                Some("[2, 1]"),
                4,
            )]),
            Action::InvStepCall => Ok(vec![
                state(
                    TextEvent::Call,
                    EventKind::Call,
                    3,
                    vec![("n".into(), "2".into())],
                    None,
                    3,
                ),
                state(
                    TextEvent::Call,
                    EventKind::Call,
                    3,
                    vec![("n".into(), "5".into())],
                    None,
                    1,
                ),
            ]),
            _ => Ok(vec![self.next(session, action, cancel)?]),
        }
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn suggested_inputs_are_ranked_picked_verified_and_inserted() {
    let engine = Engine::with_debugger(
        Arc::new(SuggestingModel(StandInModel::new())),
        TracerConfig::default(),
    );
    let client = Client::start(engine, false);
    client
        .initialize(
            editor_capabilities(&["utf-16"]),
            json!({"allowRunningCode": true, "samples": 4}),
            None,
        )
        .await;
    let uri = "file:///workspace/countdown.py";
    let text = std::fs::read_to_string(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../examples/lsp_countdown.py"
    ))
    .unwrap();
    client.open(uri, &text).await;
    let result = client
        .request(
            "workspace/executeCommand",
            json!({"command": "ndb.suggestInputs", "arguments": [{"uri": uri, "function": "countdown"}]}),
        )
        .await;
    let recorded = client.finish().await;
    let pickers: Vec<_> = recorded
        .requests
        .iter()
        .filter(|(method, _)| method == "window/showMessageRequest")
        .collect();
    let mut out = String::new();
    out.push_str("== picker\n");
    out.push_str(&serde_json::to_string_pretty(&pickers[0].1).unwrap());
    out.push_str("\n== command result\n");
    out.push_str(&serde_json::to_string_pretty(&result["result"]).unwrap());
    out.push_str("\n== applied edit\n");
    out.push_str(&serde_json::to_string_pretty(&recorded.applied_edits).unwrap());
    insta::assert_snapshot!(out);
}

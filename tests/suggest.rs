//! Black-box tests of "suggest inputs" with running allowed and the model
//! off (the search alone, deterministic and cheap): the command line, the
//! language server (`ndb lsp` over stdio, its `ndb.suggestInputs` command)
//! and the MCP server (`ndb mcp --allow-run`, its `suggest_inputs` tool)
//! return the same suggestions for the same function and budget, because
//! all three ask the one engine; and bad input gets a clear answer without
//! a hang: a function that never returns, prints without end, raises for
//! every input, takes no arguments, and an output that is not a literal.

use std::io::{BufRead, BufReader, Read, Write};
use std::path::{Path, PathBuf};
use std::process::{Child, ChildStdin, ChildStdout, Command, Output, Stdio};
use std::time::{Duration, Instant};

use serde_json::{json, Value};

fn ndb(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_ndb"))
        .args(args)
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .output()
        .expect("ndb runs")
}

/// `source` as `NAME.py` in a folder of its own under the system's
/// temporary directory, which goes when this is dropped.
struct Scratch {
    dir: PathBuf,
    path: PathBuf,
}

impl std::ops::Deref for Scratch {
    type Target = Path;

    fn deref(&self) -> &Path {
        &self.path
    }
}

impl Drop for Scratch {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.dir);
    }
}

fn scratch(name: &str, source: &str) -> Scratch {
    let dir = std::env::temp_dir().join(format!("ndb-suggest-{}-{name}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join(format!("{name}.py"));
    std::fs::write(&path, source).unwrap();
    Scratch { dir, path }
}

/// A function whose input the search finds by editing: the output given as
/// the input gets one `!` too many.
const SOURCE: &str = "\
def tag(text, n):
    \"\"\"
    >>> tag('ab', 1)
    'AB!!'
    \"\"\"
    return text.upper() + '!' * (n + 1)
";
const OUTPUT: &str = "'HI!!'";
const MAX_RUNS: &str = "24";
/// Generous, so the runs, not the clock, bound the search and the three
/// front ends see the same candidates.
const MAX_SECONDS: u64 = 60;

/// (input, origin, verified) of each suggestion, in order.
fn summary(suggestions: &[Value]) -> Vec<(String, String, Option<bool>)> {
    suggestions
        .iter()
        .map(|s| {
            (
                s["input"].as_str().unwrap_or_default().to_string(),
                s["origin"].as_str().unwrap_or_default().to_string(),
                s["verified"].as_bool(),
            )
        })
        .collect()
}

fn cli_suggestions(path: &Path) -> Vec<Value> {
    let output = ndb(&[
        "suggest-inputs",
        path.to_str().unwrap(),
        "--function",
        "tag",
        "--output",
        OUTPUT,
        "--verify",
        "--no-model",
        "--max-runs",
        MAX_RUNS,
        "--max-seconds",
        &MAX_SECONDS.to_string(),
    ]);
    assert!(
        output.status.success(),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    String::from_utf8(output.stdout)
        .unwrap()
        .lines()
        .map(|line| serde_json::from_str(line).expect("one JSON object per line"))
        .collect()
}

/// Reads one newline-delimited JSON-RPC message (MCP's stdio framing).
fn read_line_message(reader: &mut BufReader<ChildStdout>) -> Value {
    let mut line = String::new();
    assert!(
        reader.read_line(&mut line).unwrap() > 0,
        "the server closed stdout"
    );
    serde_json::from_str(&line).unwrap_or_else(|e| panic!("not JSON ({e}): {line}"))
}

fn mcp_suggestions(path: &Path) -> Vec<Value> {
    let mut child = Command::new(env!("CARGO_BIN_EXE_ndb"))
        .args(["mcp", "--allow-run", "--allow-path"])
        // The file lies outside this server's working directory, and this
        // client declares no roots: the user lets the server read there.
        .arg(path.parent().unwrap())
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .expect("ndb mcp starts");
    let mut stdin = child.stdin.take().unwrap();
    let mut reader = BufReader::new(child.stdout.take().unwrap());
    let mut send = |message: Value| {
        writeln!(stdin, "{message}").unwrap();
        stdin.flush().unwrap();
    };
    send(
        json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
        "protocolVersion": "2025-06-18", "capabilities": {},
        "clientInfo": {"name": "suggest-test", "version": "0"}}}),
    );
    let initialized = read_line_message(&mut reader);
    assert!(initialized.get("result").is_some(), "{initialized}");
    send(json!({"jsonrpc": "2.0", "method": "notifications/initialized"}));
    send(
        json!({"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": {
        "name": "suggest_inputs",
        "arguments": {"path": path.to_str().unwrap(), "function": "tag", "output": OUTPUT,
            "verify": true, "use_model": false, "max_runs": MAX_RUNS.parse::<u32>().unwrap(),
            "max_seconds": MAX_SECONDS}}}),
    );
    let answer = loop {
        let message = read_line_message(&mut reader);
        if message["id"] == json!(2) {
            break message;
        }
    };
    drop(stdin);
    let _ = child.kill();
    let _ = child.wait();
    let result = &answer["result"];
    assert_ne!(result["isError"], json!(true), "{answer}");
    result["structuredContent"]["suggestions"]
        .as_array()
        .unwrap_or_else(|| panic!("no suggestions in {answer}"))
        .clone()
}

struct Lsp {
    child: Child,
    stdin: ChildStdin,
    reader: BufReader<ChildStdout>,
}

impl Lsp {
    fn send(&mut self, message: Value) {
        let text = message.to_string();
        write!(self.stdin, "Content-Length: {}\r\n\r\n{text}", text.len()).unwrap();
        self.stdin.flush().unwrap();
    }

    fn read(&mut self) -> Value {
        let mut length = 0;
        loop {
            let mut line = String::new();
            assert!(
                self.reader.read_line(&mut line).unwrap() > 0,
                "the server closed stdout"
            );
            let line = line.trim();
            if line.is_empty() {
                break;
            }
            if let Some(value) = line.strip_prefix("Content-Length:") {
                length = value.trim().parse().unwrap();
            }
        }
        let mut body = vec![0; length];
        self.reader.read_exact(&mut body).unwrap();
        serde_json::from_slice(&body).unwrap()
    }

    /// Waits for the response to `id`, answering the server's own requests
    /// (progress, registrations) with an empty result.
    fn response(&mut self, id: i64) -> Value {
        loop {
            let message = self.read();
            if message.get("method").is_some() {
                if let Some(request_id) = message.get("id") {
                    self.send(json!({"jsonrpc": "2.0", "id": request_id, "result": null}));
                }
                continue;
            }
            if message["id"] == json!(id) {
                return message;
            }
        }
    }
}

fn lsp_suggestions(path: &Path) -> Vec<Value> {
    let mut child = Command::new(env!("CARGO_BIN_EXE_ndb"))
        .args(["lsp"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .expect("ndb lsp starts");
    let stdin = child.stdin.take().unwrap();
    let reader = BufReader::new(child.stdout.take().unwrap());
    let mut lsp = Lsp {
        child,
        stdin,
        reader,
    };
    let uri = format!("file://{}", path.display());
    lsp.send(
        json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
        "processId": null, "rootUri": null, "capabilities": {},
        "initializationOptions": {"neuralDebugger": {
            "allowRunningCode": true,
            "suggestions": {"useModel": false, "maxRuns": MAX_RUNS.parse::<u32>().unwrap(),
                "maxSeconds": MAX_SECONDS}}}}}),
    );
    lsp.response(1);
    lsp.send(json!({"jsonrpc": "2.0", "method": "initialized", "params": {}}));
    lsp.send(
        json!({"jsonrpc": "2.0", "method": "textDocument/didOpen", "params": {
        "textDocument": {"uri": uri, "languageId": "python", "version": 1, "text": SOURCE}}}),
    );
    lsp.send(
        json!({"jsonrpc": "2.0", "id": 2, "method": "workspace/executeCommand", "params": {
        "command": "ndb.suggestInputs",
        "arguments": [{"uri": uri, "function": "tag", "output": OUTPUT, "pick": false}]}}),
    );
    let answer = lsp.response(2);
    lsp.send(json!({"jsonrpc": "2.0", "id": 3, "method": "shutdown", "params": null}));
    let _ = lsp.response(3);
    lsp.send(json!({"jsonrpc": "2.0", "method": "exit", "params": null}));
    let _ = lsp.child.wait();
    answer["result"]["suggestions"]
        .as_array()
        .unwrap_or_else(|| panic!("no suggestions in {answer}"))
        .clone()
}

#[test]
fn the_editor_and_the_agent_tool_suggest_what_the_command_line_does() {
    let path = scratch("same", SOURCE);
    let cli = summary(&cli_suggestions(&path));
    // The search finds it, by a real run, and says so.
    assert_eq!(cli.first().map(|s| s.2), Some(Some(true)), "{cli:?}");
    assert!(
        cli.len() > 1,
        "the refuted candidates are listed too: {cli:?}"
    );
    let mcp = summary(&mcp_suggestions(&path));
    assert_eq!(mcp, cli, "the MCP tool differs from the command line");
    let lsp = summary(&lsp_suggestions(&path));
    assert_eq!(
        lsp, cli,
        "the editor's command differs from the command line"
    );
}

/// Runs `suggest-inputs --verify --no-model` on `source` and returns the
/// output, and how long it took.
fn suggest_search_only(
    name: &str,
    source: &str,
    output: &str,
    seconds: &str,
) -> (Output, Duration) {
    let path = scratch(name, source);
    let started = Instant::now();
    let result = ndb(&[
        "suggest-inputs",
        path.to_str().unwrap(),
        "--function",
        "f",
        "--output",
        output,
        "--verify",
        "--no-model",
        "--max-runs",
        "8",
        "--max-seconds",
        seconds,
        "--time-limit",
        "2",
    ]);
    (result, started.elapsed())
}

fn lines(output: &Output) -> Vec<Value> {
    String::from_utf8_lossy(&output.stdout)
        .lines()
        .map(|line| serde_json::from_str(line).unwrap())
        .collect()
}

#[test]
fn functions_that_never_return_or_print_forever_end_within_the_budget_and_say_so() {
    for (name, source) in [
        ("forever", "def f(x):\n    while True:\n        pass\n"),
        ("chatty", "def f(x):\n    while True:\n        print(x)\n"),
    ] {
        let (output, took) = suggest_search_only(name, source, "1", "4");
        let stderr = String::from_utf8_lossy(&output.stderr);
        assert!(output.status.success(), "{name}: {stderr}");
        assert!(took < Duration::from_secs(20), "{name} took {took:?}");
        assert!(
            stderr.contains("no run finished within the limits"),
            "{name}: {stderr}"
        );
        let suggestions = lines(&output);
        assert!(
            !suggestions.is_empty(),
            "{name}: the tried inputs are still listed"
        );
        for suggestion in suggestions {
            assert_eq!(suggestion["verified"], Value::Null, "{name}: {suggestion}");
            assert!(suggestion["actual"].is_string(), "{name}: {suggestion}");
        }
    }
}

#[test]
fn a_function_that_raises_for_every_input_is_reported_with_what_it_raised() {
    let (output, _) = suggest_search_only(
        "raises",
        "def f(x):\n    raise ValueError('never ' + repr(x))\n",
        "'a'",
        "20",
    );
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(output.status.success(), "{stderr}");
    assert!(
        stderr.contains("every one of the 8 runs raised"),
        "{stderr}"
    );
    let suggestions = lines(&output);
    assert!(!suggestions.is_empty());
    for suggestion in suggestions {
        assert_eq!(suggestion["verified"], json!(false), "{suggestion}");
        let actual = suggestion["actual"].as_str().unwrap();
        assert!(actual.starts_with("raised ValueError"), "{actual}");
    }
}

#[test]
fn no_arguments_and_an_output_that_is_no_literal_are_clear_errors() {
    let (output, _) = suggest_search_only("none", "def f():\n    return 1\n", "1", "5");
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(!output.status.success());
    assert!(output.stdout.is_empty());
    assert!(stderr.contains("`f` takes no arguments"), "{stderr}");

    let (output, _) =
        suggest_search_only("literal", "def f(x):\n    return x\n", "hello world", "5");
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(!output.status.success());
    assert!(stderr.contains("is not a Python literal"), "{stderr}");
    assert!(stderr.contains("`hello` is a name"), "{stderr}");
}

#[test]
fn a_negative_output_of_a_function_that_walks_its_argument_by_index_is_found() {
    // `--output -1` is a value, not an option; and `range(len(words))`
    // does not make `words` a number, so an empty sequence is tried.
    let source = "\
def f(words):
    for i in range(len(words)):
        if words[i] == 'stop':
            return i
    return -1
";
    let (output, _) = suggest_search_only("walk", source, "-1", "30");
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(output.status.success(), "{stderr}");
    let suggestions = lines(&output);
    let first = suggestions
        .first()
        .unwrap_or_else(|| panic!("nothing suggested: {stderr}"));
    assert_eq!(first["verified"], Value::Bool(true), "{first}");
}

#[test]
fn an_output_the_function_makes_by_a_common_transformation_is_undone() {
    // A count of characters: the text is the count's keys repeated; a swap
    // of case: what the output itself gives back; a list the body inserts
    // into: the output without one item, that item and its place. Each
    // within a few runs.
    for (name, source, output, origin) in [
        (
            "insert",
            "def f(queue, position, job):\n    queue.insert(position, job)\n    return queue\n",
            "['wash', 'dry', 'fold', 'iron']",
            "derived",
        ),
        (
            "counts",
            "def f(s):\n    counts = {}\n    for ch in s:\n        counts[ch] = counts.get(ch, 0) + 1\n    return counts\n",
            "{'x': 2, 'y': 1}",
            "derived",
        ),
        (
            "swapcase",
            "def f(s):\n    if s.isupper():\n        return s.lower()\n    return s.swapcase()\n",
            "'aBc De'",
            "returned",
        ),
    ] {
        let (output_of_run, _) = suggest_search_only(name, source, output, "30");
        let stderr = String::from_utf8_lossy(&output_of_run.stderr);
        assert!(output_of_run.status.success(), "{name}: {stderr}");
        let suggestions = lines(&output_of_run);
        let first = suggestions.first().unwrap_or_else(|| panic!("{name}: nothing suggested"));
        assert_eq!(first["verified"], Value::Bool(true), "{name}: {first}");
        assert_eq!(first["origin"], Value::from(origin), "{name}: {first}");
        assert!(first["from"].as_str().is_some_and(|from| !from.is_empty()), "{name}: {first}");
    }
}

#[test]
fn a_rearrangement_or_an_item_by_item_map_is_worked_back_from_probe_runs() {
    // A rotation of a word with repeated letters: the run on the output
    // with its letters made distinct shows where each letter goes. A map
    // of each number: the run on many possible preimages shows what each
    // becomes. Neither input is the output or an edit of it near enough
    // for eight runs.
    for (name, source, output) in [
        (
            "rotation",
            "def f(word):\n    return word[3:] + word[:3]\n",
            "'ssippimis'",
        ),
        (
            "map",
            "def f(nums):\n    return [n * 3 - 1 for n in nums]\n",
            "[5, -4, 29, 2]",
        ),
    ] {
        let (output_of_run, _) = suggest_search_only(name, source, output, "30");
        let stderr = String::from_utf8_lossy(&output_of_run.stderr);
        assert!(output_of_run.status.success(), "{name}: {stderr}");
        let suggestions = lines(&output_of_run);
        let first = suggestions
            .first()
            .unwrap_or_else(|| panic!("{name}: nothing suggested"));
        assert_eq!(first["verified"], Value::Bool(true), "{name}: {first}");
        assert_eq!(first["origin"], Value::from("derived"), "{name}: {first}");
        let from = first["from"].as_str().unwrap_or_default();
        assert!(
            from.contains("probe") || from.contains("own run"),
            "{name}: {first}"
        );
    }
}

//! Black-box test of `ndb mcp` with a real MCP client: the official Python
//! SDK (`mcp` on PyPI, installed by `.ci/setup`) starts the real binary over
//! stdio, lists the tools, validates their schemas and results, and runs a
//! whole session and every one-shot tool with the default model, malformed
//! calls, a flood of sessions and an expired one, then checks that stdout
//! carries only protocol messages and that a client disconnecting mid-call
//! stops the server. The checks themselves are in `tests/mcp/client.py`.
//!
//! `NDB_MCP_TEST_ARGS` adds arguments to `ndb mcp` (such as `--samples 4`).
//!
//! Every agent's configuration snippet in docs/agent-tools.md is read as
//! that agent reads it (JSON, or TOML for Codex) and the server it names is
//! started and asked for its tools.

use std::path::Path;
use std::process::Command;

use serde_json::Value;

#[path = "mcp/start.rs"]
mod start;

#[test]
fn an_mcp_client_drives_the_real_server() {
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/mcp/client.py");
    let extra = std::env::var("NDB_MCP_TEST_ARGS").unwrap_or_else(|_| "--samples 2".to_string());
    let output = Command::new("python3")
        .arg(&script)
        .arg(env!("CARGO_BIN_EXE_ndb"))
        .args(extra.split_whitespace())
        .output()
        .expect("python3 runs (tests/mcp/client.py needs `pip install mcp==2.3.0`)");
    let stdout = String::from_utf8_lossy(&output.stdout);
    let stderr = String::from_utf8_lossy(&output.stderr);
    println!("{stdout}");
    eprintln!("{stderr}");
    assert!(
        output.status.success(),
        "the MCP client's checks failed:\n{}",
        stdout
            .lines()
            .filter(|line| line.starts_with("FAIL") || line.contains("passed,"))
            .collect::<Vec<_>>()
            .join("\n")
    );
}

/// The snippets of docs/agent-tools.md: `<!-- agent-snippet: AGENT FILE -->`
/// and the fenced block after it, with its language.
fn agent_snippets() -> Vec<(String, String, String)> {
    let guide =
        std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("docs/agent-tools.md"))
            .expect("docs/agent-tools.md");
    let mut snippets = Vec::new();
    let mut lines = guide.lines();
    while let Some(line) = lines.next() {
        let Some(marker) = line
            .strip_prefix("<!-- agent-snippet: ")
            .and_then(|rest| rest.strip_suffix(" -->"))
        else {
            continue;
        };
        let fence = lines.next().unwrap_or_default();
        let language = fence
            .strip_prefix("```")
            .expect("a fenced block after the marker");
        let body: Vec<&str> = lines.by_ref().take_while(|line| *line != "```").collect();
        snippets.push((marker.to_string(), language.to_string(), body.join("\n")));
    }
    snippets
}

/// The ndb server entry of one agent's configuration, as JSON.
fn ndb_entry(language: &str, body: &str) -> Value {
    let config: Value = match language {
        "json" => serde_json::from_str(body).expect("the snippet is JSON"),
        "toml" => {
            let output = Command::new("python3")
                .args([
                    "-c",
                    "import json, sys, tomllib; print(json.dumps(tomllib.loads(sys.argv[1])))",
                    body,
                ])
                .output()
                .expect("python3 runs");
            assert!(
                output.status.success(),
                "{}",
                String::from_utf8_lossy(&output.stderr)
            );
            serde_json::from_slice(&output.stdout).expect("tomllib prints JSON")
        }
        other => panic!("a snippet in {other}"),
    };
    ["mcpServers", "servers", "mcp_servers", "context_servers"]
        .iter()
        .find_map(|key| config.get(key).and_then(|servers| servers.get("ndb")))
        .cloned()
        .unwrap_or_else(|| panic!("no ndb server in {config}"))
}

#[test]
fn every_agent_snippet_in_the_guide_starts_a_server_that_lists_the_tools() {
    let snippets = agent_snippets();
    let agents: Vec<&str> = snippets
        .iter()
        .map(|(marker, _, _)| marker.split(' ').next().unwrap_or_default())
        .collect();
    for agent in [
        "vscode",
        "claude-code",
        "cursor",
        "codex",
        "gemini-cli",
        "windsurf",
        "zed",
    ] {
        assert!(
            agents.contains(&agent),
            "docs/agent-tools.md has no snippet for {agent}: {agents:?}"
        );
    }
    for (marker, language, body) in &snippets {
        let entry = ndb_entry(language, body);
        assert_eq!(
            entry["command"], "ndb",
            "{marker}: the command is ndb on PATH"
        );
        if let Some(kind) = entry.get("type") {
            assert_eq!(kind, "stdio", "{marker}");
        }
        // The agent finds `ndb` on PATH: here, the binary under test.
        let spec = serde_json::json!({
            "command": env!("CARGO_BIN_EXE_ndb"),
            "args": entry["args"],
            "cwd": env!("CARGO_MANIFEST_DIR"),
        });
        let answered = start::start_mcp_server(&spec);
        let tools = answered["tools"].as_array().expect("tools");
        assert!(
            tools.iter().any(|tool| tool == "start_session"),
            "{marker}: {answered}"
        );
        assert!(
            answered["functions"]
                .as_array()
                .is_some_and(|names| names.iter().any(|name| name == "running_max")),
            "{marker}: {answered}"
        );
    }
}

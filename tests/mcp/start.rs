//! Starting the MCP server a client configuration names, as the client
//! would (tests/mcp/start.py, the official MCP SDK), from the tests that
//! check those configurations: `tests/editors.rs` (VS Code's registration)
//! and `tests/mcp.rs` (the agents' snippets in docs/agent-tools.md).

use std::path::Path;
use std::process::Command;

use serde_json::Value;

/// Starts the server `spec` names (`command`, `args`, `cwd`, `env`) and
/// returns what it answered: `{"tools": [...], "functions": [...]}`.
pub fn start_mcp_server(spec: &Value) -> Value {
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/mcp/start.py");
    let output = Command::new("python3")
        .arg(&script)
        .arg(spec.to_string())
        .output()
        .expect("python3 runs (tests/mcp/start.py needs `pip install mcp==2.3.0`)");
    assert!(
        output.status.success(),
        "the MCP server of {spec} did not answer:\n{}",
        String::from_utf8_lossy(&output.stderr)
    );
    serde_json::from_str(String::from_utf8_lossy(&output.stdout).trim())
        .expect("tests/mcp/start.py prints JSON")
}

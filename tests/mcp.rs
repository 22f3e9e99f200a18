//! Black-box test of `ndb mcp` with a real MCP client: the official Python
//! SDK (`mcp` on PyPI, installed by `.ci/setup`) starts the real binary over
//! stdio, lists the tools, validates their schemas and results, and runs a
//! whole session and every one-shot tool with the default model, malformed
//! calls, a flood of sessions and an expired one, then checks that stdout
//! carries only protocol messages and that a client disconnecting mid-call
//! stops the server. The checks themselves are in `tests/mcp/client.py`.
//!
//! `NDB_MCP_TEST_ARGS` adds arguments to `ndb mcp` (such as `--samples 4`).

use std::path::Path;
use std::process::Command;

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

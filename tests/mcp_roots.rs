//! Agents stay inside their project: the official MCP Python SDK (`mcp` on
//! PyPI) starts the real `ndb mcp` with and without MCP roots and checks
//! that `path` arguments outside the roots (or the working directory), `..`
//! and symbolic links out are refused with an error naming the allowed
//! directories, that `roots/list_changed` and `--allow-path` widen them,
//! and that `run_trace` says the code ran sandboxed. Needs no model. The
//! checks are in `tests/mcp/roots.py`.

use std::path::Path;
use std::process::Command;

#[test]
fn mcp_paths_stay_inside_the_client_roots() {
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/mcp/roots.py");
    let output = Command::new("python3")
        .arg(&script)
        .arg(env!("CARGO_BIN_EXE_ndb"))
        .output()
        .expect("python3 runs (tests/mcp/roots.py needs `pip install mcp==2.3.0`)");
    let stdout = String::from_utf8_lossy(&output.stdout);
    println!("{stdout}");
    eprintln!("{}", String::from_utf8_lossy(&output.stderr));
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

//! Black-box test of `ndb lsp` with a real language client: pytest-lsp (PyPI,
//! installed by `.ci/setup`) starts the real binary over stdio, as an editor
//! would, on the files in `examples/`: inlay hints appear at a breakpoint and
//! hover shows a value with the default model, suggest-inputs inserts a
//! doctest that the real interpreter then passes or fails as its
//! verification mark says, and the tracer engine shows real values without a
//! model. The checks themselves are in `tests/lsp/test_editor.py`.
//!
//! `NDB_LSP_TEST_ARGS` adds arguments to `ndb lsp` (default `--samples 1`).

use std::path::Path;
use std::process::Command;

#[test]
fn an_editor_drives_the_real_language_server() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let output = Command::new("python3")
        .args(["-m", "pytest", "tests/lsp", "-q", "-rs", "-s"])
        .current_dir(root)
        .env("NDB_BIN", env!("CARGO_BIN_EXE_ndb"))
        .output()
        .expect("python3 runs (tests/lsp needs `pip install pytest-lsp==1.0.1`)");
    let stdout = String::from_utf8_lossy(&output.stdout);
    let stderr = String::from_utf8_lossy(&output.stderr);
    println!("{stdout}");
    eprintln!("{stderr}");
    assert!(
        output.status.success(),
        "the language client's checks failed:\n{}",
        stdout
            .lines()
            .filter(|line| line.starts_with("FAILED")
                || line.starts_with("ERROR")
                || line.contains(" passed"))
            .collect::<Vec<_>>()
            .join("\n")
    );
}

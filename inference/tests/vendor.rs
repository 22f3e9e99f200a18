//! The vendored crates (`inference/vendor/`) are crates.io's packages plus
//! the patch series of `inference/vendor/patches/`: `rebuild.py --check`
//! rebuilds them (each `.crate` from cargo's cache or static.crates.io, its
//! SHA-256 checked against `upstream.json`) and compares every file both
//! ways. A vendored file changed without its patch fails here, and so does
//! a patch that no longer applies.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

fn vendor() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("vendor")
}

fn rebuild(args: &[&str]) -> Output {
    Command::new("python3")
        .arg(vendor().join("rebuild.py"))
        .args(args)
        .output()
        .expect("python3 runs")
}

fn printed(output: &Output) -> String {
    format!(
        "{}{}",
        String::from_utf8_lossy(&output.stdout),
        String::from_utf8_lossy(&output.stderr)
    )
}

fn copy_tree(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).expect("the copy's folder is made");
    for entry in std::fs::read_dir(from).expect("the vendored tree reads") {
        let entry = entry.expect("the vendored tree reads");
        let target = to.join(entry.file_name());
        if entry.file_type().expect("a file type").is_dir() {
            copy_tree(&entry.path(), &target);
        } else {
            std::fs::copy(entry.path(), &target).expect("a vendored file copies");
        }
    }
}

#[test]
fn the_vendored_crates_are_upstream_plus_their_patches() {
    let output = rebuild(&["--check"]);
    assert!(
        output.status.success(),
        "`python3 inference/vendor/rebuild.py --check` failed ({}); change a \
         vendored crate through its patch series (inference/vendor/README.md):\n{}",
        output.status,
        printed(&output)
    );
}

#[test]
fn one_byte_changed_in_a_copy_fails_the_check() {
    // The check run on a copy of candle-core with one byte changed: the
    // real tree stays as it is.
    let copy =
        Path::new(env!("CARGO_TARGET_TMPDIR")).join(format!("vendor-check-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&copy);
    copy_tree(&vendor().join("candle-core"), &copy.join("candle-core"));
    let changed = copy.join("candle-core/src/utils.rs");
    let mut bytes = std::fs::read(&changed).expect("the copy reads");
    bytes[100] ^= 1;
    std::fs::write(&changed, bytes).expect("the copy writes");

    let tree = copy.to_str().expect("a UTF-8 path");
    let output = rebuild(&["--check", "--crate", "candle-core", "--tree", tree]);
    let _ = std::fs::remove_dir_all(&copy);
    let printed = printed(&output);
    assert_eq!(
        output.status.code(),
        Some(1),
        "a changed copy is a difference:\n{printed}"
    );
    assert!(
        printed.contains("~ src/utils.rs (contents differ)"),
        "the changed file is named:\n{printed}"
    );
}

//! `ndb models` and an installed ndb: the real binary copied out of the
//! checkout (what `cargo install --path . --root DIR` puts in `DIR/bin`,
//! without compiling everything a second time), a temporary data directory,
//! the real install script (taking the checkout's already fetched files,
//! each checked by hash, instead of downloading them again) and the real
//! model answering the README example from an empty folder.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use serde_json::Value;

struct Scratch(PathBuf);

impl Scratch {
    fn new(name: &str) -> Scratch {
        let path = std::env::temp_dir().join(format!("ndb-models-{name}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&path);
        std::fs::create_dir_all(&path).unwrap();
        Scratch(path)
    }
}

impl Drop for Scratch {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

/// `ndb` as a user who installed it runs it: from `cwd`, with only the
/// data directory set (no NDB_MODEL, no checkout around the binary).
fn run(exe: &Path, cwd: &Path, data: &Path, args: &[&str]) -> Output {
    let mut tries = 0;
    loop {
        let result = Command::new(exe)
            .args(args)
            .current_dir(cwd)
            .env_remove("NDB_MODEL")
            .env("NDB_DATA_DIR", data)
            .output();
        match result {
            Err(error) if error.kind() == std::io::ErrorKind::ExecutableFileBusy && tries < 50 => {
                tries += 1;
                std::thread::sleep(std::time::Duration::from_millis(100));
            }
            result => return result.expect("ndb runs"),
        }
    }
}

fn stdout(output: &Output) -> String {
    assert!(
        output.status.success(),
        "ndb failed: {}",
        String::from_utf8_lossy(&output.stderr)
    );
    String::from_utf8(output.stdout.clone()).unwrap()
}

/// The binary in a folder of its own, outside the checkout. A hard link
/// where the file system allows one: a copy is a file open for writing, and
/// a test on another thread that forks in that moment keeps it open in its
/// child until that child execs, so running the copy can fail with "Text
/// file busy" (ETXTBSY); `run` retries that case for the copy.
fn installed_copy(scratch: &Scratch) -> PathBuf {
    let bin = scratch.0.join("bin");
    std::fs::create_dir_all(&bin).unwrap();
    let exe = bin.join("ndb");
    let built = env!("CARGO_BIN_EXE_ndb");
    if std::fs::hard_link(built, &exe).is_err() {
        std::fs::copy(built, &exe).unwrap();
    }
    exe
}

#[test]
fn an_installed_ndb_finds_its_models_in_the_data_directory_from_an_empty_folder() {
    let scratch = Scratch::new("install");
    let exe = installed_copy(&scratch);
    let data = scratch.0.join("data");
    let empty = scratch.0.join("empty");
    std::fs::create_dir_all(&empty).unwrap();

    // Before the install the copy finds no model, and says the one command.
    let example = Path::new(env!("CARGO_MANIFEST_DIR")).join("examples/quickstart.py");
    let example = example.to_str().unwrap();
    let call = "mean_of_evens([3, 4, 7, 10])";
    let before = run(
        &exe,
        &empty,
        &data,
        &["predict", example, "--call", call, "--actions", "step_over"],
    );
    assert!(!before.status.success());
    let message = String::from_utf8_lossy(&before.stderr);
    assert!(message.contains("ndb models install"), "{message}");
    assert!(
        message.contains(&data.join("models").display().to_string()),
        "{message}"
    );

    let installed = stdout(&run(&exe, &empty, &data, &["models", "install"]));
    assert!(
        installed.contains(&data.join("models").display().to_string()),
        "{installed}"
    );

    let listed: Value = serde_json::from_str(&stdout(&run(
        &exe,
        &empty,
        &data,
        &["models", "list", "--json"],
    )))
    .unwrap();
    // Only the data directory: a copy outside the checkout never reads it.
    let places = listed["places"].as_array().unwrap();
    assert_eq!(places.len(), 1, "{listed}");
    assert_eq!(places[0]["place"], "data directory");
    let default = data.join("models").join("default");
    assert_eq!(listed["default"], default.display().to_string());
    let names: Vec<&str> = places[0]["models"]
        .as_array()
        .unwrap()
        .iter()
        .map(|model| model["name"].as_str().unwrap())
        .collect();
    for name in [
        "default",
        "smollm2-debugger",
        "qwen2.5-coder-1.5b-q8",
        "base",
    ] {
        assert!(names.contains(&name), "{name} missing from {names:?}");
    }

    // The README example, from an empty folder.
    let predicted = stdout(&run(
        &exe,
        &empty,
        &data,
        &[
            "predict",
            example,
            "--call",
            call,
            "--actions",
            "step_over,breakpoint:13,step_return",
        ],
    ));
    let states: Vec<Value> = predicted
        .lines()
        .map(|line| serde_json::from_str(line).expect("JSON lines"))
        .collect();
    assert_eq!(states.len(), 4, "{predicted}");
    assert_eq!(states[0]["event"], "call");
    assert_eq!(states[0]["line"], 9);
    assert_eq!(states[3]["event"], "return");
    for state in &states[1..] {
        let confidence = state["confidence"]
            .as_f64()
            .expect("a predicted state's confidence");
        assert!((0.0..=1.0).contains(&confidence), "{state}");
        assert!(state["verdict"].is_string(), "{state}");
    }
}

#[test]
fn an_install_without_an_adapter_says_what_an_adapter_is_and_writes_nothing() {
    let scratch = Scratch::new("no-adapter");
    let exe = installed_copy(&scratch);
    let data = scratch.0.join("data");
    let output = run(
        &exe,
        &scratch.0,
        &data,
        &[
            "models",
            "install",
            "--adapter",
            scratch.0.to_str().unwrap(),
        ],
    );
    assert!(!output.status.success());
    let message = String::from_utf8_lossy(&output.stderr);
    assert!(message.contains("has no adapter.safetensors"), "{message}");
    assert!(!data.exists());
}

#[test]
fn the_checkout_binary_lists_the_checkout_models_first_and_loads_its_default() {
    let scratch = Scratch::new("list");
    let exe = Path::new(env!("CARGO_BIN_EXE_ndb"));
    let text = stdout(&run(
        exe,
        &scratch.0,
        &scratch.0.join("data"),
        &["models", "list"],
    ));
    let checkout = Path::new(env!("CARGO_MANIFEST_DIR")).join("inference/models");
    let lines: Vec<&str> = text.lines().collect();
    assert!(lines[0].starts_with("checkout: "), "{text}");
    assert!(
        lines[0].ends_with(&*checkout.display().to_string()),
        "{text}"
    );
    assert!(text.contains("data directory: "), "{text}");
    assert!(text.contains("(nothing installed)"), "{text}");
    let default_line = lines
        .iter()
        .find(|line| line.starts_with("* "))
        .expect("a default");
    assert!(default_line.contains("default"), "{text}");
    assert!(
        text.ends_with(&format!(
            "default (*): {}\n",
            checkout.join("default").display()
        )),
        "{text}"
    );
}

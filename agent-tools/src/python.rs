//! What the tools need to know about a Python file without running it,
//! read with tree-sitter: its functions (signatures, line ranges), the entry
//! calls the file itself suggests (doctests, `# ndb: f(...)` comments, calls
//! under `if __name__ == "__main__":`, other literal calls), the first syntax
//! error, and the callee of an entry call. Plain data with 1-based lines.

use tree_sitter::{Node, Parser, Tree};

/// At most this many entry calls are listed per function.
const MAX_ENTRY_CALLS: usize = 5;

/// One function or method of the file.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Function {
    pub name: String,
    /// `Class.method` for methods, the name otherwise.
    pub qualified_name: String,
    /// The `def` line (decorators are above it).
    pub line: u32,
    /// The last line of the body.
    pub end_line: u32,
    /// Such as `def f(xs, k=3) -> int`, on one line.
    pub signature: String,
    pub parameters: Vec<String>,
    /// Defined inside a class body.
    pub method: bool,
    /// Defined at the module's top level (callable by name in an entry call).
    pub top_level: bool,
    pub entry_calls: Vec<EntryCall>,
}

/// A call of a function found in the file, usable as an entry call.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct EntryCall {
    /// The call expression, such as `f([1, 2], k=3)`.
    pub call: String,
    pub line: u32,
    pub origin: EntryOrigin,
}

/// Where an entry call was found, most deliberate first.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum EntryOrigin {
    /// A `# ndb: f(...)` comment above the `def`.
    Comment,
    /// A `>>> f(...)` line of a docstring.
    Doctest,
    /// A call under `if __name__ == "__main__":`.
    Main,
    /// A call elsewhere in the file whose arguments are literals.
    Call,
}

impl EntryOrigin {
    pub fn as_str(self) -> &'static str {
        match self {
            EntryOrigin::Comment => "comment",
            EntryOrigin::Doctest => "doctest",
            EntryOrigin::Main => "main",
            EntryOrigin::Call => "call",
        }
    }
}

/// The first place tree-sitter could not parse.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SyntaxError {
    pub line: u32,
    pub column: u32,
    /// The text of the offending line, trimmed.
    pub text: String,
}

/// A parsed file.
pub struct PythonFile<'a> {
    source: &'a str,
    tree: Tree,
}

fn parser() -> Parser {
    let mut parser = Parser::new();
    parser
        .set_language(&tree_sitter_python::LANGUAGE.into())
        .expect("the tree-sitter-python grammar matches the tree-sitter version");
    parser
}

fn text<'a>(node: Node, source: &'a str) -> &'a str {
    node.utf8_text(source.as_bytes()).unwrap_or("")
}

fn line_of(node: Node) -> u32 {
    node.start_position().row as u32 + 1
}

fn one_line(text: &str) -> String {
    text.split_whitespace().collect::<Vec<_>>().join(" ")
}

impl<'a> PythonFile<'a> {
    pub fn parse(source: &'a str) -> PythonFile<'a> {
        // Parsing only fails on cancellation or a missing language, neither
        // of which can happen here.
        let tree = parser()
            .parse(source, None)
            .expect("tree-sitter parses without a timeout");
        PythonFile { source, tree }
    }

    /// The first syntax error, in source order.
    pub fn syntax_error(&self) -> Option<SyntaxError> {
        let root = self.tree.root_node();
        if !root.has_error() {
            return None;
        }
        let mut stack = vec![root];
        let mut first: Option<Node> = None;
        while let Some(node) = stack.pop() {
            if node.is_error() || node.is_missing() {
                if first.is_none_or(|f| node.start_byte() < f.start_byte()) {
                    first = Some(node);
                }
                continue;
            }
            if node.has_error() {
                let mut cursor = node.walk();
                stack.extend(node.children(&mut cursor));
            }
        }
        let node = first.unwrap_or(root);
        let line = line_of(node);
        Some(SyntaxError {
            line,
            column: node.start_position().column as u32 + 1,
            text: ndb_grammar::state::source_line(self.source, line)
                .trim()
                .to_string(),
        })
    }

    /// Every function and method, in source order, with its entry calls.
    pub fn functions(&self) -> Vec<Function> {
        let mut functions = Vec::new();
        collect_functions(
            self.tree.root_node(),
            self.source,
            None,
            false,
            true,
            &mut functions,
        );
        let calls = self.calls();
        for function in functions.iter_mut().filter(|f| f.top_level) {
            let mut found: Vec<EntryCall> = Vec::new();
            for call in self.comment_calls(function) {
                push_unique(&mut found, call);
            }
            for call in self.doctest_calls(function) {
                push_unique(&mut found, call);
            }
            let mut sites: Vec<&EntryCall> = calls
                .iter()
                .filter(|(callee, call)| {
                    callee == &function.name
                        && !(function.line..=function.end_line).contains(&call.line)
                })
                .map(|(_, call)| call)
                .collect();
            sites.sort_by_key(|call| (call.origin, call.line));
            for call in sites {
                push_unique(&mut found, call.clone());
            }
            found.truncate(MAX_ENTRY_CALLS);
            function.entry_calls = found;
        }
        functions
    }

    /// `# ndb: f(...)` comments in the block of comment lines just above the
    /// function's `def` (or its decorators).
    fn comment_calls(&self, function: &Function) -> Vec<EntryCall> {
        let lines: Vec<&str> = ndb_grammar::state::source_lines(self.source).collect();
        let mut line = function.line as usize - 1; // 0-based index of `def`
        while line > 0 && lines[line - 1].trim_start().starts_with('@') {
            line -= 1;
        }
        let mut calls = Vec::new();
        while line > 0 && lines[line - 1].trim_start().starts_with('#') {
            line -= 1;
            let comment = lines[line].trim_start().trim_start_matches('#').trim();
            if let Some(call) = comment.strip_prefix("ndb:") {
                let call = call.trim();
                if callee_of(call).as_deref() == Ok(function.name.as_str()) {
                    calls.push(EntryCall {
                        call: call.to_string(),
                        line: line as u32 + 1,
                        origin: EntryOrigin::Comment,
                    });
                }
            }
        }
        calls.reverse();
        calls
    }

    /// `>>> f(...)` lines anywhere in the file (doctests of the function, of
    /// another function or of the module) that call the function.
    fn doctest_calls(&self, function: &Function) -> Vec<EntryCall> {
        ndb_grammar::state::source_lines(self.source)
            .enumerate()
            .filter_map(|(index, line)| {
                let call = line.trim_start().strip_prefix(">>>")?.trim();
                (callee_of(call).as_deref() == Ok(function.name.as_str())).then(|| EntryCall {
                    call: call.to_string(),
                    line: index as u32 + 1,
                    origin: EntryOrigin::Doctest,
                })
            })
            .collect()
    }

    /// Calls of plain names in the file that can serve as entry calls: those
    /// under `if __name__ == "__main__":` and those at the module level
    /// (their arguments may name module globals), and, inside functions,
    /// those whose arguments are literals (no names a frame could bind).
    fn calls(&self) -> Vec<(String, EntryCall)> {
        let mut calls = Vec::new();
        let mut stack = vec![(self.tree.root_node(), Scope::Module)];
        while let Some((node, scope)) = stack.pop() {
            let scope = match node.kind() {
                "function_definition" | "lambda" | "class_definition" => Scope::Function,
                "if_statement" if scope == Scope::Module && self.is_main_guard(node) => Scope::Main,
                _ => scope,
            };
            if node.kind() == "call" {
                if let (Some(callee), Some(arguments)) = (
                    node.child_by_field_name("function"),
                    node.child_by_field_name("arguments"),
                ) {
                    let usable = callee.kind() == "identifier"
                        && arguments.kind() == "argument_list"
                        && literal_arguments(arguments, self.source, scope != Scope::Function);
                    if usable {
                        calls.push((
                            text(callee, self.source).to_string(),
                            EntryCall {
                                call: one_line(text(node, self.source)),
                                line: line_of(node),
                                origin: if scope == Scope::Main {
                                    EntryOrigin::Main
                                } else {
                                    EntryOrigin::Call
                                },
                            },
                        ));
                    }
                }
            }
            let mut cursor = node.walk();
            for child in node.children(&mut cursor) {
                stack.push((child, scope));
            }
        }
        calls
    }

    fn is_main_guard(&self, node: Node) -> bool {
        node.child_by_field_name("condition")
            .is_some_and(|condition| {
                let condition = one_line(text(condition, self.source)).replace('\'', "\"");
                condition == "__name__ == \"__main__\"" || condition == "\"__main__\" == __name__"
            })
    }
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum Scope {
    Module,
    Main,
    Function,
}

fn push_unique(found: &mut Vec<EntryCall>, call: EntryCall) {
    if !found.iter().any(|known| known.call == call.call) {
        found.push(call);
    }
}

/// Arguments the debugger can bind without running code: literals,
/// containers of literals, calls of the container builtins on literals,
/// lambdas, and (when `names` is set, at the module level) names, which may
/// be module globals bound to literals.
fn literal_arguments(arguments: Node, source: &str, names: bool) -> bool {
    let mut stack = vec![arguments];
    while let Some(node) = stack.pop() {
        match node.kind() {
            "identifier" => {
                // A keyword argument's name is not a reference; the
                // constants are identifiers in some grammar versions.
                let is_keyword_name = node.parent().is_some_and(|parent| {
                    parent.kind() == "keyword_argument"
                        && parent.child_by_field_name("name") == Some(node)
                });
                let constant = matches!(text(node, source), "True" | "False" | "None");
                if !(names || is_keyword_name || constant) {
                    return false;
                }
            }
            "call" => {
                let builtin = node.child_by_field_name("function").is_some_and(|callee| {
                    matches!(
                        text(callee, source),
                        "set" | "frozenset" | "dict" | "list" | "tuple" | "float"
                    )
                });
                if !builtin {
                    return false;
                }
                if let Some(arguments) = node.child_by_field_name("arguments") {
                    stack.push(arguments);
                }
                continue;
            }
            // A lambda's body refers to its own parameters.
            "lambda" => continue,
            "list_comprehension"
            | "set_comprehension"
            | "dictionary_comprehension"
            | "generator_expression"
            | "await"
            | "named_expression" => return false,
            _ => {}
        }
        let mut cursor = node.walk();
        stack.extend(node.children(&mut cursor));
    }
    true
}

/// Collects the functions under `node`. `prefix` is the qualified name of
/// the enclosing class (`in_class`) or function (`f.<locals>`), as Python's
/// `__qualname__` writes it.
fn collect_functions(
    node: Node,
    source: &str,
    prefix: Option<&str>,
    in_class: bool,
    top_level: bool,
    out: &mut Vec<Function>,
) {
    let mut cursor = node.walk();
    for child in node.children(&mut cursor) {
        let definition = if child.kind() == "decorated_definition" {
            child.child_by_field_name("definition")
        } else {
            Some(child)
        };
        let Some(definition) = definition else {
            continue;
        };
        match definition.kind() {
            "function_definition" => {
                let name = definition
                    .child_by_field_name("name")
                    .map_or("", |n| text(n, source))
                    .to_string();
                let parameters_node = definition.child_by_field_name("parameters");
                let mut signature = String::new();
                if text(definition, source).starts_with("async") {
                    signature.push_str("async ");
                }
                signature.push_str("def ");
                signature.push_str(&name);
                signature.push_str(&one_line(parameters_node.map_or("()", |p| text(p, source))));
                if let Some(returns) = definition.child_by_field_name("return_type") {
                    signature.push_str(" -> ");
                    signature.push_str(&one_line(text(returns, source)));
                }
                let parameters = parameters_node
                    .map(|p| parameter_names(p, source))
                    .unwrap_or_default();
                let qualified_name = match prefix {
                    Some(prefix) => format!("{prefix}.{name}"),
                    None => name.clone(),
                };
                out.push(Function {
                    qualified_name: qualified_name.clone(),
                    name,
                    line: line_of(definition),
                    end_line: definition.end_position().row as u32
                        + u32::from(definition.end_position().column > 0),
                    signature,
                    parameters,
                    method: in_class,
                    top_level,
                    entry_calls: Vec::new(),
                });
                if let Some(body) = definition.child_by_field_name("body") {
                    let prefix = format!("{qualified_name}.<locals>");
                    collect_functions(body, source, Some(&prefix), false, false, out);
                }
            }
            "class_definition" => {
                let name = definition
                    .child_by_field_name("name")
                    .map_or("", |n| text(n, source));
                let qualified_name = match prefix {
                    Some(prefix) => format!("{prefix}.{name}"),
                    None => name.to_string(),
                };
                if let Some(body) = definition.child_by_field_name("body") {
                    collect_functions(body, source, Some(&qualified_name), true, false, out);
                }
            }
            // Functions defined under `if`, `try`, ... at the top level are
            // still module functions.
            "if_statement" | "try_statement" | "else_clause" | "block" | "elif_clause"
            | "except_clause" | "finally_clause" | "with_statement"
                if top_level =>
            {
                collect_functions(definition, source, prefix, in_class, true, out);
            }
            _ => {}
        }
    }
}

fn parameter_names(parameters: Node, source: &str) -> Vec<String> {
    let mut names = Vec::new();
    let mut cursor = parameters.walk();
    for parameter in parameters.named_children(&mut cursor) {
        let name = match parameter.kind() {
            "identifier" => text(parameter, source).to_string(),
            "typed_parameter" | "list_splat_pattern" | "dictionary_splat_pattern" => {
                let prefix = match text(parameter, source) {
                    t if t.starts_with("**") => "**",
                    t if t.starts_with('*') => "*",
                    _ => "",
                };
                let mut inner = parameter.walk();
                let identifier = parameter
                    .named_children(&mut inner)
                    .find(|n| n.kind() == "identifier")
                    .map_or("", |n| text(n, source));
                format!("{prefix}{identifier}")
            }
            "default_parameter" | "typed_default_parameter" => parameter
                .child_by_field_name("name")
                .map_or("", |n| text(n, source))
                .to_string(),
            _ => continue,
        };
        if !name.is_empty() {
            names.push(name);
        }
    }
    names
}

/// The name an entry call such as `f([1, 2], k=3)` calls, or why it is not
/// a call of a plain name.
pub fn callee_of(entry_call: &str) -> Result<String, String> {
    let entry_call = entry_call.trim();
    if entry_call.is_empty() {
        return Err("the entry call is empty; write a call such as `f([1, 2])`".into());
    }
    if entry_call.contains('\n') {
        return Err("the entry call must be one expression on one line".into());
    }
    let tree = parser()
        .parse(entry_call, None)
        .expect("tree-sitter parses without a timeout");
    let root = tree.root_node();
    let expression = root
        .named_child(0)
        .filter(|statement| {
            root.named_child_count() == 1 && statement.kind() == "expression_statement"
        })
        .and_then(|statement| statement.named_child(0));
    let call = match expression {
        Some(node) if !root.has_error() && node.kind() == "call" => node,
        _ => {
            return Err(format!(
                "`{entry_call}` is not a call expression such as `f([1, 2], k=3)`"
            ))
        }
    };
    let callee = call
        .child_by_field_name("function")
        .filter(|callee| callee.kind() == "identifier");
    match callee {
        Some(callee) => Ok(text(callee, entry_call).to_string()),
        None => Err(format!(
            "`{entry_call}` must call a function of the file by its name, such as `f(...)`"
        )),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn callee_of_accepts_only_plain_calls() {
        assert_eq!(callee_of("f([1, 2], k=3)"), Ok("f".to_string()));
        assert!(callee_of("f(").is_err());
        assert!(callee_of("x + 1").is_err());
        assert!(callee_of("obj.method(1)").is_err());
        assert!(callee_of("").is_err());
        assert!(callee_of("f(1)\ng(2)").is_err());
    }

    #[test]
    fn finds_the_first_syntax_error() {
        let file = PythonFile::parse("def f(x):\n    return x +\n\ndef g():\n    pass\n");
        let error = file.syntax_error().expect("a syntax error");
        assert_eq!(error.line, 2);
        assert!(PythonFile::parse("def f():\n    return 1\n")
            .syntax_error()
            .is_none());
    }
}

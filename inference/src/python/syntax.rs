//! What ndb knows about one Python file without running it, from its
//! tree-sitter tree: functions, methods and nested functions; their return
//! lines, docstrings and doctest examples; the `# ndb:` comments above them;
//! and the calls in the file whose arguments can be evaluated when the module
//! is loaded (candidate entry calls). Plain data with byte offsets and
//! 0-based lines; half-typed code yields whatever tree-sitter recovered.

use std::collections::HashSet;
use std::ops::Range;

use tree_sitter::{Node, Tree};

use super::line_index::LineIndex;

/// How a function sits in its file.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum FunctionKind {
    /// A module-level `def`.
    Function,
    /// A `def` directly in a module-level class body.
    Method { class: String },
    /// Anything else: a `def` inside a function (or a class inside one).
    Nested,
}

/// One `def`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Function {
    pub name: String,
    /// `f`, `Counter.add`, `outer.inner`.
    pub qualified_name: String,
    pub kind: FunctionKind,
    /// The whole definition, decorators included.
    pub range: Range<usize>,
    pub name_range: Range<usize>,
    /// 0-based line of the `def` keyword.
    pub def_line: usize,
    /// 0-based line of the first decorator, or of the `def`.
    pub first_line: usize,
    /// 0-based line of the definition's last character.
    pub last_line: usize,
    /// Indentation of the `def` line.
    pub indent: String,
    /// Indentation of the body's first statement (`indent` plus four spaces
    /// when the body is missing or on the `def` line).
    pub body_indent: String,
    /// 0-based line of the body's first statement after the docstring:
    /// where execution first stops in the function.
    pub body_line: usize,
    /// 0-based first line after the header (the `def` line for a body on
    /// it), blank lines included.
    pub body_start_line: usize,
    /// 0-based last line of the body's last statement (comments after it
    /// are not the body's).
    pub body_end_line: usize,
    /// The header on one line, such as `def f(xs, k=3) -> int`.
    pub signature: String,
    pub parameters: Vec<Parameter>,
    /// 0-based lines of the `return` statements of this function (not of
    /// functions nested in it).
    pub return_lines: Vec<usize>,
    pub docstring: Option<Docstring>,
    /// Index (in [`Analysis::functions`]) of the function whose entry calls
    /// start this one: itself for functions and methods, the outermost
    /// enclosing function or method for nested ones.
    pub runnable: usize,
    /// Index of the directly enclosing function, if any.
    pub parent: Option<usize>,
}

/// One parameter of a `def`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Parameter {
    pub name: String,
    pub kind: ParameterKind,
}

/// How a parameter receives its argument.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ParameterKind {
    /// By position or keyword (positional-only ones too).
    Positional,
    /// Only by keyword: after `*` or `*args`.
    KeywordOnly,
    /// `*args`.
    VarPositional,
    /// `**kwargs`.
    VarKeyword,
}

impl Function {
    /// Whether `name` is one of the parameters.
    pub fn has_parameter(&self, name: &str) -> bool {
        self.parameters
            .iter()
            .any(|parameter| parameter.name == name)
    }
}

/// A function's docstring.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Docstring {
    /// The string literal, quotes included.
    pub range: Range<usize>,
    /// Where the closing quotes start.
    pub closing_quotes: usize,
    pub examples: Vec<DoctestExample>,
}

/// One `>>> ` example (with its `... ` continuation lines).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct DoctestExample {
    /// 0-based line of the `>>>`.
    pub line: usize,
    /// The example's source, continuation lines joined with newlines.
    pub source: String,
    /// The expected output lines, joined with newlines; empty when none.
    pub expected: String,
}

/// A call found in the file.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CallSite {
    /// The call's text, such as `f(1, [2])` or `Counter(2).add(3)`.
    pub text: String,
    /// The name called: `f` for `f(...)` and `m` for `x.m(...)`.
    pub callee: String,
    /// The call is `obj.callee(...)`.
    pub is_attribute: bool,
    pub range: Range<usize>,
    pub line: usize,
    /// Inside `if __name__ == "__main__":`.
    pub in_main_block: bool,
    /// Every name in the call is bound when the module is loaded (module
    /// level, not under the main block) or is a builtin: the tracer can
    /// evaluate it as an entry call.
    pub evaluable: bool,
    /// Index of the function the call is written in, if any.
    pub enclosing_function: Option<usize>,
}

/// A `# ndb: CALL` comment.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct NdbComment {
    pub line: usize,
    pub call: String,
    pub range: Range<usize>,
}

/// Everything [`Analysis::new`] finds in one file.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Analysis {
    pub functions: Vec<Function>,
    pub calls: Vec<CallSite>,
    /// Names bound at module level when the file is imported.
    pub module_names: HashSet<String>,
    /// `# ndb:` comments, by line.
    pub ndb_comments: Vec<NdbComment>,
    /// The tree has syntax errors: predictions wait for code that parses.
    pub has_errors: bool,
}

/// Builtins an entry call may use.
const BUILTINS: &[&str] = &[
    "abs",
    "all",
    "any",
    "bin",
    "bool",
    "bytearray",
    "bytes",
    "chr",
    "complex",
    "dict",
    "divmod",
    "enumerate",
    "filter",
    "float",
    "frozenset",
    "hex",
    "int",
    "iter",
    "len",
    "list",
    "map",
    "max",
    "min",
    "object",
    "oct",
    "ord",
    "pow",
    "range",
    "repr",
    "reversed",
    "round",
    "set",
    "slice",
    "sorted",
    "str",
    "sum",
    "tuple",
    "zip",
    "True",
    "False",
    "None",
    "Ellipsis",
    "ValueError",
    "KeyError",
    "IndexError",
    "TypeError",
    "Exception",
];

impl Analysis {
    pub fn new(text: &str, tree: Option<&Tree>, line_index: &LineIndex) -> Analysis {
        let Some(tree) = tree else {
            return Analysis::default();
        };
        let root = tree.root_node();
        let mut analysis = Analysis {
            has_errors: root.has_error(),
            ..Analysis::default()
        };
        let source = text.as_bytes();
        collect_module_names(root, source, &mut analysis.module_names);
        let mut walker = Walker {
            source,
            text,
            line_index,
            analysis: &mut analysis,
        };
        walker.walk(root, &Scope::Module, false);
        let comments = collect_ndb_comments(text, line_index);
        analysis.ndb_comments = comments;
        analysis
    }

    /// The innermost function whose definition holds `line` (0-based).
    pub fn function_at_line(&self, line: usize) -> Option<usize> {
        self.functions
            .iter()
            .enumerate()
            .filter(|(_, function)| function.def_line <= line && line <= function.last_line)
            .max_by_key(|(_, function)| function.def_line)
            .map(|(index, _)| index)
    }

    /// The `# ndb:` comments directly above a function (above its decorators),
    /// nearest last.
    pub fn ndb_comments_of(&self, function: &Function) -> Vec<&NdbComment> {
        let mut found = Vec::new();
        let mut line = function.first_line;
        while line > 0 {
            line -= 1;
            match self
                .ndb_comments
                .iter()
                .find(|comment| comment.line == line)
            {
                Some(comment) => found.push(comment),
                None => break,
            }
        }
        found.reverse();
        found
    }

    /// Whether `name` can be referred to by an entry call.
    pub fn is_module_name(&self, name: &str) -> bool {
        self.module_names.contains(name) || BUILTINS.contains(&name)
    }
}

/// Where the walker is.
enum Scope {
    Module,
    Class { name: String, top_level: bool },
    Function { index: usize },
}

struct Walker<'a> {
    source: &'a [u8],
    text: &'a str,
    line_index: &'a LineIndex,
    analysis: &'a mut Analysis,
}

impl Walker<'_> {
    fn text_of(&self, node: Node) -> &str {
        node.utf8_text(self.source).unwrap_or("")
    }

    fn walk(&mut self, node: Node, scope: &Scope, in_main: bool) {
        let mut cursor = node.walk();
        let children: Vec<Node> = node.children(&mut cursor).collect();
        for child in children {
            match child.kind() {
                "function_definition" => self.function(child, child, scope, in_main),
                "decorated_definition" => {
                    if let Some(definition) = child.child_by_field_name("definition") {
                        let mut inner = definition.walk();
                        for decorator in child.children(&mut inner) {
                            if decorator.kind() == "decorator" {
                                self.walk(decorator, scope, in_main);
                            }
                        }
                        match definition.kind() {
                            "function_definition" => {
                                self.function(definition, child, scope, in_main)
                            }
                            "class_definition" => self.class(definition, scope, in_main),
                            _ => self.walk(definition, scope, in_main),
                        }
                    }
                }
                "class_definition" => self.class(child, scope, in_main),
                "if_statement"
                    if matches!(scope, Scope::Module) && is_main_guard(child, self.source) =>
                {
                    self.walk(child, scope, true);
                }
                "call" => {
                    self.call(child, scope, in_main);
                    self.walk(child, scope, in_main);
                }
                _ => self.walk(child, scope, in_main),
            }
        }
    }

    fn class(&mut self, node: Node, scope: &Scope, in_main: bool) {
        let name = node
            .child_by_field_name("name")
            .map(|name| self.text_of(name).to_string())
            .unwrap_or_default();
        let inner = Scope::Class {
            name,
            top_level: matches!(scope, Scope::Module),
        };
        // Base classes and keyword arguments belong to the outer scope.
        if let Some(superclasses) = node.child_by_field_name("superclasses") {
            self.walk(superclasses, scope, in_main);
        }
        if let Some(body) = node.child_by_field_name("body") {
            self.walk(body, &inner, in_main);
        }
    }

    fn function(&mut self, node: Node, outer: Node, scope: &Scope, in_main: bool) {
        let name_node = node.child_by_field_name("name");
        let name = name_node.map_or(String::new(), |name| self.text_of(name).to_string());
        if name.is_empty() {
            return;
        }
        let (kind, qualified_name, parent) = match scope {
            Scope::Module => (FunctionKind::Function, name.clone(), None),
            Scope::Class {
                name: class,
                top_level: true,
            } => (
                FunctionKind::Method {
                    class: class.clone(),
                },
                format!("{class}.{name}"),
                None,
            ),
            Scope::Class {
                name: class,
                top_level: false,
            } => (FunctionKind::Nested, format!("{class}.{name}"), None),
            Scope::Function { index } => (
                FunctionKind::Nested,
                format!("{}.{name}", self.analysis.functions[*index].qualified_name),
                Some(*index),
            ),
        };
        let index = self.analysis.functions.len();
        // A nested class's methods have no `parent` from the scope; find the
        // enclosing function by position instead.
        let parent = parent.or_else(|| {
            if kind == FunctionKind::Nested {
                self.analysis
                    .functions
                    .iter()
                    .enumerate()
                    .filter(|(_, function)| {
                        function.range.start <= outer.start_byte()
                            && outer.end_byte() <= function.range.end
                    })
                    .max_by_key(|(_, function)| function.range.start)
                    .map(|(index, _)| index)
            } else {
                None
            }
        });
        let runnable = match parent {
            Some(parent) => self.analysis.functions[parent].runnable,
            None => index,
        };
        let def_line = node.start_position().row;
        let indent = leading_whitespace(self.line_index.line_text(self.text, def_line)).to_string();
        let body = node.child_by_field_name("body");
        let (body_line, body_indent) = match body {
            Some(body) if body.start_position().row > def_line => {
                // The docstring runs no line: the first stop is the statement after it.
                let first = body.named_child(0);
                let is_docstring = first.is_some_and(|first| {
                    first.kind() == "expression_statement"
                        && first
                            .named_child(0)
                            .is_some_and(|string| string.kind() == "string")
                });
                let line = match (is_docstring, body.named_child(1)) {
                    (true, Some(next)) => next.start_position().row,
                    _ => body.start_position().row,
                };
                (
                    line,
                    leading_whitespace(self.line_index.line_text(self.text, line)).to_string(),
                )
            }
            Some(body) => (body.start_position().row, format!("{indent}    ")),
            None => (def_line + 1, format!("{indent}    ")),
        };
        // The first line after the header (which may span lines), or the
        // `def` line for a body on it.
        let header_end = {
            let mut cursor = node.walk();
            let colon = node.children(&mut cursor).find(|child| child.kind() == ":");
            colon.map_or(def_line, |colon| colon.end_position().row)
        };
        let body_start_line = match body {
            Some(body) if body.start_position().row > header_end => header_end + 1,
            Some(body) => body.start_position().row,
            None => def_line,
        };
        let body_end_line = body.map_or(def_line, last_statement_line);
        let parameters = node
            .child_by_field_name("parameters")
            .map(|parameters| parameters_of(parameters, self.source))
            .unwrap_or_default();
        let signature = signature_of(node, &name, self.source);
        let docstring = body.and_then(|body| self.docstring(body));
        self.analysis.functions.push(Function {
            name,
            qualified_name,
            kind,
            range: outer.start_byte()..outer.end_byte(),
            name_range: name_node.map_or(0..0, |name| name.start_byte()..name.end_byte()),
            def_line,
            first_line: outer.start_position().row,
            last_line: outer.end_position().row,
            indent,
            body_indent,
            body_line,
            body_start_line,
            body_end_line,
            signature,
            parameters,
            return_lines: Vec::new(),
            docstring,
            runnable,
            parent,
        });
        if let Some(parameters) = node.child_by_field_name("parameters") {
            // Default values are evaluated in the outer scope.
            self.walk(parameters, scope, in_main);
        }
        if let Some(body) = body {
            let mut returns = Vec::new();
            collect_return_lines(body, &mut returns);
            self.analysis.functions[index].return_lines = returns;
            self.walk(body, &Scope::Function { index }, in_main);
        }
    }

    fn docstring(&self, body: Node) -> Option<Docstring> {
        let first = body.named_child(0)?;
        if first.kind() != "expression_statement" {
            return None;
        }
        let string = first.named_child(0)?;
        if string.kind() != "string" {
            return None;
        }
        let text = self.text_of(string);
        let quote_len = if text.ends_with("\"\"\"") || text.ends_with("'''") {
            3
        } else {
            1
        };
        let closing_quotes = string.end_byte().saturating_sub(quote_len);
        let first_line = string.start_position().row;
        let mut examples = Vec::new();
        let lines: Vec<&str> = text.split('\n').collect();
        let mut index = 0;
        while index < lines.len() {
            let trimmed = lines[index].trim_start();
            if let Some(example) = trimmed.strip_prefix(">>>") {
                let line = first_line + index;
                let mut source = example
                    .strip_prefix(' ')
                    .unwrap_or(example)
                    .trim_end()
                    .to_string();
                index += 1;
                while index < lines.len() {
                    let continuation = lines[index].trim_start();
                    match continuation.strip_prefix("...") {
                        Some(rest) if rest.is_empty() || rest.starts_with(' ') => {
                            source.push('\n');
                            source.push_str(rest.strip_prefix(' ').unwrap_or(rest).trim_end());
                            index += 1;
                        }
                        _ => break,
                    }
                }
                let mut expected = Vec::new();
                while index < lines.len() {
                    let output = lines[index].trim();
                    let closing = output.ends_with("\"\"\"") || output.ends_with("'''");
                    let output = output
                        .trim_end_matches("\"\"\"")
                        .trim_end_matches("'''")
                        .trim_end();
                    if output.is_empty() || output.starts_with(">>>") {
                        break;
                    }
                    expected.push(output.to_string());
                    index += 1;
                    if closing {
                        break;
                    }
                }
                examples.push(DoctestExample {
                    line,
                    source,
                    expected: expected.join("\n"),
                });
            } else {
                index += 1;
            }
        }
        Some(Docstring {
            range: string.start_byte()..string.end_byte(),
            closing_quotes,
            examples,
        })
    }

    fn call(&mut self, node: Node, scope: &Scope, in_main: bool) {
        let Some(function) = node.child_by_field_name("function") else {
            return;
        };
        let (callee, is_attribute) = match function.kind() {
            "identifier" => (self.text_of(function).to_string(), false),
            "attribute" => match function.child_by_field_name("attribute") {
                Some(attribute) => (self.text_of(attribute).to_string(), true),
                None => return,
            },
            _ => return,
        };
        let evaluable = is_evaluable(node, self.source, &|name| {
            self.analysis.module_names.contains(name) || BUILTINS.contains(&name)
        });
        let enclosing_function = match scope {
            Scope::Function { index } => Some(*index),
            _ => None,
        };
        self.analysis.calls.push(CallSite {
            text: self.text_of(node).to_string(),
            callee,
            is_attribute,
            range: node.start_byte()..node.end_byte(),
            line: node.start_position().row,
            in_main_block: in_main,
            evaluable,
            enclosing_function,
        });
    }
}

/// Whether every identifier in `node` (not keyword-argument names or
/// attribute names) is known to `is_known`; lambdas, comprehensions, `await`
/// and `yield` make a call not evaluable.
pub fn is_evaluable(node: Node, source: &[u8], is_known: &dyn Fn(&str) -> bool) -> bool {
    match node.kind() {
        "lambda"
        | "list_comprehension"
        | "set_comprehension"
        | "dictionary_comprehension"
        | "generator_expression"
        | "await"
        | "yield"
        | "ERROR"
        | "named_expression" => false,
        _ if node.is_missing() => false,
        "identifier" => is_known(node.utf8_text(source).unwrap_or("")),
        "keyword_argument" => node
            .child_by_field_name("value")
            .is_some_and(|value| is_evaluable(value, source, is_known)),
        "attribute" => node
            .child_by_field_name("object")
            .is_some_and(|object| is_evaluable(object, source, is_known)),
        _ => {
            let mut cursor = node.walk();
            let children: Vec<Node> = node.named_children(&mut cursor).collect();
            children
                .into_iter()
                .all(|child| is_evaluable(child, source, is_known))
        }
    }
}

fn is_main_guard(node: Node, source: &[u8]) -> bool {
    node.child_by_field_name("condition")
        .is_some_and(|condition| {
            let text = condition.utf8_text(source).unwrap_or("");
            let compact: String = text.chars().filter(|c| !c.is_whitespace()).collect();
            let compact = compact.replace('\'', "\"");
            compact == "__name__==\"__main__\"" || compact == "\"__main__\"==__name__"
        })
}

fn collect_return_lines(node: Node, lines: &mut Vec<usize>) {
    let mut cursor = node.walk();
    for child in node.named_children(&mut cursor) {
        match child.kind() {
            "return_statement" => lines.push(child.start_position().row),
            "function_definition" | "class_definition" | "lambda" => {}
            "decorated_definition" => {}
            _ => collect_return_lines(child, lines),
        }
    }
}

/// The parameters of a `def`'s parameter list, in order, by how each
/// receives its argument.
fn parameters_of(parameters: Node, source: &[u8]) -> Vec<Parameter> {
    let mut found = Vec::new();
    let mut keyword_only = false;
    let mut cursor = parameters.walk();
    for parameter in parameters.named_children(&mut cursor) {
        fn identifier(node: Node) -> Option<Node> {
            let mut inner = node.walk();
            let found = node
                .named_children(&mut inner)
                .find(|child| child.kind() == "identifier");
            found
        }
        let (name, kind) = match parameter.kind() {
            "identifier" => (Some(parameter), None),
            "default_parameter" | "typed_default_parameter" => {
                (parameter.child_by_field_name("name"), None)
            }
            "typed_parameter" => {
                // `*args: int` and `**kw: str` are typed splats.
                let text = parameter.utf8_text(source).unwrap_or("");
                let kind = if text.starts_with("**") {
                    Some(ParameterKind::VarKeyword)
                } else if text.starts_with('*') {
                    Some(ParameterKind::VarPositional)
                } else {
                    None
                };
                (identifier(parameter), kind)
            }
            "list_splat_pattern" => (identifier(parameter), Some(ParameterKind::VarPositional)),
            "dictionary_splat_pattern" => (identifier(parameter), Some(ParameterKind::VarKeyword)),
            "keyword_separator" => {
                keyword_only = true;
                continue;
            }
            _ => continue,
        };
        let kind = kind.unwrap_or(if keyword_only {
            ParameterKind::KeywordOnly
        } else {
            ParameterKind::Positional
        });
        if kind == ParameterKind::VarPositional {
            keyword_only = true;
        }
        if let Some(name) = name.and_then(|name| name.utf8_text(source).ok()) {
            found.push(Parameter {
                name: name.to_string(),
                kind,
            });
        }
    }
    found
}

/// A `def` header on one line: `async def f(xs, k=3) -> int`.
fn signature_of(node: Node, name: &str, source: &[u8]) -> String {
    let text = |node: Node| one_line(node.utf8_text(source).unwrap_or(""));
    let mut signature = String::new();
    if node.utf8_text(source).unwrap_or("").starts_with("async") {
        signature.push_str("async ");
    }
    signature.push_str("def ");
    signature.push_str(name);
    signature.push_str(
        &node
            .child_by_field_name("parameters")
            .map_or("()".to_string(), text),
    );
    if let Some(returns) = node.child_by_field_name("return_type") {
        signature.push_str(" -> ");
        signature.push_str(&text(returns));
    }
    signature
}

fn one_line(text: &str) -> String {
    text.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// Names bound at module level by definitions, assignments and imports,
/// outside the main block (which does not run when the tracer imports the
/// file).
fn collect_module_names(root: Node, source: &[u8], names: &mut HashSet<String>) {
    let mut cursor = root.walk();
    for statement in root.named_children(&mut cursor) {
        collect_statement_names(statement, source, names);
    }
}

fn collect_statement_names(statement: Node, source: &[u8], names: &mut HashSet<String>) {
    let text = |node: Node| node.utf8_text(source).unwrap_or("").to_string();
    match statement.kind() {
        "function_definition" | "class_definition" => {
            if let Some(name) = statement.child_by_field_name("name") {
                names.insert(text(name));
            }
        }
        "decorated_definition" => {
            if let Some(definition) = statement.child_by_field_name("definition") {
                collect_statement_names(definition, source, names);
            }
        }
        "expression_statement" => {
            let mut cursor = statement.walk();
            for expression in statement.named_children(&mut cursor) {
                if matches!(expression.kind(), "assignment" | "augmented_assignment") {
                    let mut target = expression.child_by_field_name("left");
                    let mut right = expression.child_by_field_name("right");
                    loop {
                        if let Some(target) = target {
                            collect_target_names(target, source, names);
                        }
                        // Chained assignment `a = b = 1`.
                        match right {
                            Some(node) if node.kind() == "assignment" => {
                                target = node.child_by_field_name("left");
                                right = node.child_by_field_name("right");
                            }
                            _ => break,
                        }
                    }
                }
            }
        }
        "import_statement" | "import_from_statement" => {
            let mut cursor = statement.walk();
            for child in statement.named_children(&mut cursor) {
                if statement.kind() == "import_from_statement"
                    && statement.child_by_field_name("module_name") == Some(child)
                {
                    continue;
                }
                match child.kind() {
                    "dotted_name" => {
                        if let Some(first) = text(child).split('.').next() {
                            names.insert(first.to_string());
                        }
                    }
                    "aliased_import" => {
                        if let Some(alias) = child.child_by_field_name("alias") {
                            names.insert(text(alias));
                        }
                    }
                    _ => {}
                }
            }
        }
        "if_statement" if is_main_guard(statement, source) => {}
        "if_statement" | "try_statement" | "with_statement" | "block" | "else_clause"
        | "elif_clause" | "except_clause" | "finally_clause" => {
            let mut cursor = statement.walk();
            for child in statement.named_children(&mut cursor) {
                collect_statement_names(child, source, names);
            }
        }
        "for_statement" => {
            if let Some(left) = statement.child_by_field_name("left") {
                collect_target_names(left, source, names);
            }
        }
        _ => {}
    }
}

fn collect_target_names(target: Node, source: &[u8], names: &mut HashSet<String>) {
    match target.kind() {
        "identifier" => {
            names.insert(target.utf8_text(source).unwrap_or("").to_string());
        }
        "pattern_list" | "tuple_pattern" | "list_pattern" | "expression_list" | "tuple"
        | "list" => {
            let mut cursor = target.walk();
            for child in target.named_children(&mut cursor) {
                collect_target_names(child, source, names);
            }
        }
        _ => {}
    }
}

/// `# ndb: CALL` comments anywhere in the file (they count only directly
/// above a `def` or its decorators).
fn collect_ndb_comments(text: &str, line_index: &LineIndex) -> Vec<NdbComment> {
    let mut comments = Vec::new();
    for line in 0..line_index.line_count() {
        let range = line_index.line_range(text, line);
        let line_text = &text[range.clone()];
        let trimmed = line_text.trim_start();
        if let Some(rest) = trimmed.strip_prefix('#') {
            if let Some(call) = rest.trim_start().strip_prefix("ndb:") {
                let call = call.trim();
                if !call.is_empty() {
                    comments.push(NdbComment {
                        line,
                        call: call.to_string(),
                        range,
                    });
                }
            }
        }
    }
    comments
}

fn leading_whitespace(line: &str) -> &str {
    &line[..line.len() - line.trim_start().len()]
}

/// The identifier at `offset` (or just before it), with its range.
pub fn identifier_at(tree: &Tree, text: &str, offset: usize) -> Option<(String, Range<usize>)> {
    let root = tree.root_node();
    let candidates = [offset, offset.saturating_sub(1)];
    for offset in candidates {
        let node = root.descendant_for_byte_range(offset, offset)?;
        // `obj.name` and `f(name=...)`: `name` is no variable.
        let is_field_name = node.parent().is_some_and(|parent| {
            (parent.kind() == "attribute" && parent.child_by_field_name("attribute") == Some(node))
                || (parent.kind() == "keyword_argument"
                    && parent.child_by_field_name("name") == Some(node))
        });
        if node.kind() == "identifier" && !is_field_name {
            let name = node.utf8_text(text.as_bytes()).ok()?.to_string();
            return Some((name, node.start_byte()..node.end_byte()));
        }
    }
    None
}
/// The last line of the last statement of `body` (a block): where the
/// function's code ends, comments after it left out.
fn last_statement_line(body: Node) -> usize {
    let mut cursor = body.walk();
    let last = body
        .named_children(&mut cursor)
        .filter(|child| child.kind() != "comment")
        .last()
        .unwrap_or(body);
    let end = last.end_position();
    // A node that ends at a line's start (its newline included) ends on
    // the line before.
    if end.column == 0 && end.row > last.start_position().row {
        end.row - 1
    } else {
        end.row
    }
}

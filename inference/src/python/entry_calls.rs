//! Entry calls: the calls that can start a function, found without running
//! anything, and the choice of the active one.
//!
//! Sources, in the order that picks the active call when the user has not
//! chosen one: an `# ndb: f(...)` comment directly above the `def`, inputs the
//! user accepted from "suggest inputs", doctest examples in the docstring,
//! calls under `if __name__ == "__main__":`, other calls in the same file,
//! calls in the workspace's test files. A call counts only when the tracer
//! could evaluate it after importing the file: every name in it is bound at
//! module level or is a builtin. Nested functions are started by the entry
//! calls of their outermost enclosing function.

use std::collections::HashMap;

use tree_sitter::{Node, Tree};

use super::parser;
use super::syntax::{is_evaluable, Analysis, Function, FunctionKind};

/// Where an entry call was found.
#[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Origin {
    /// The user picked it ("choose entry call").
    Chosen,
    /// `# ndb: f(...)` above the `def`.
    NdbComment,
    /// A suggested input the user accepted.
    Accepted,
    Doctest,
    MainBlock,
    SameFile,
    /// A test file of the workspace (its path, relative when possible).
    TestFile(String),
}

impl Origin {
    /// A short word for lenses and pickers.
    pub fn describe(&self) -> String {
        match self {
            Origin::Chosen => "chosen".into(),
            Origin::NdbComment => "# ndb: comment".into(),
            Origin::Accepted => "accepted suggestion".into(),
            Origin::Doctest => "doctest".into(),
            Origin::MainBlock => "__main__ block".into(),
            Origin::SameFile => "call in this file".into(),
            Origin::TestFile(path) => format!("test {path}"),
        }
    }
}

/// One way to start a function.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct EntryCall {
    /// What the tracer or the model is given, such as `f([1, 2], k=3)`.
    pub call: String,
    pub origin: Origin,
    /// 0-based line in this file where it was found, if here.
    pub line: Option<usize>,
}

/// Calls found in the workspace's test files, by the name called.
pub type ExternalCalls = HashMap<String, Vec<(String, String, usize)>>;

/// What the user said about entry calls of one document.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct UserEntryCalls {
    /// Qualified function name to the entry call the user chose.
    pub chosen: HashMap<String, String>,
    /// Qualified function name to accepted suggestions, oldest first.
    pub accepted: HashMap<String, Vec<String>>,
}

/// All entry calls of the function at `index` (for a nested function: of the
/// function that runs it), best first, duplicates removed.
pub fn discover(
    analysis: &Analysis,
    index: usize,
    user: &UserEntryCalls,
    external: &ExternalCalls,
) -> Vec<EntryCall> {
    let Some(function) = analysis.functions.get(index) else {
        return Vec::new();
    };
    let runnable = &analysis.functions[function.runnable];
    let mut calls = Vec::new();
    if let Some(chosen) = user.chosen.get(&runnable.qualified_name) {
        calls.push(EntryCall {
            call: chosen.clone(),
            origin: Origin::Chosen,
            line: None,
        });
    }
    for comment in analysis
        .ndb_comments_of(runnable)
        .into_iter()
        .filter(|comment| calls_of(&comment.call, runnable))
    {
        calls.push(EntryCall {
            call: comment.call.clone(),
            origin: Origin::NdbComment,
            line: Some(comment.line),
        });
    }
    for accepted in user
        .accepted
        .get(&runnable.qualified_name)
        .into_iter()
        .flatten()
        .rev()
    {
        calls.push(EntryCall {
            call: accepted.clone(),
            origin: Origin::Accepted,
            line: None,
        });
    }
    if let Some(docstring) = &runnable.docstring {
        for example in &docstring.examples {
            if let Some(call) = doctest_call(&example.source, runnable, analysis) {
                calls.push(EntryCall {
                    call,
                    origin: Origin::Doctest,
                    line: Some(example.line),
                });
            }
        }
    }
    let mut main_calls = Vec::new();
    let mut file_calls = Vec::new();
    for site in &analysis.calls {
        if !site.evaluable || !calls_function(&site.callee, site.is_attribute, &site.text, runnable)
        {
            continue;
        }
        // A recursive call inside the function itself uses its locals.
        if site
            .enclosing_function
            .is_some_and(|enclosing| analysis.functions[enclosing].runnable == function.runnable)
        {
            continue;
        }
        let entry = EntryCall {
            call: site.text.clone(),
            origin: if site.in_main_block {
                Origin::MainBlock
            } else {
                Origin::SameFile
            },
            line: Some(site.line),
        };
        if site.in_main_block {
            main_calls.push(entry);
        } else {
            file_calls.push(entry);
        }
    }
    calls.extend(main_calls);
    calls.extend(file_calls);
    if runnable.kind == FunctionKind::Function {
        for (call, path, _line) in external.get(&runnable.name).into_iter().flatten() {
            calls.push(EntryCall {
                call: call.clone(),
                origin: Origin::TestFile(path.clone()),
                line: None,
            });
        }
    }
    for call in &mut calls {
        call.call = one_line(&call.call);
    }
    let mut seen = std::collections::HashSet::new();
    calls.retain(|call| seen.insert(normalise(&call.call)));
    calls
}

/// A call written over several lines (a doctest with `...` lines, a long
/// call in the file) on one line, as an entry call is given: each line
/// trimmed, joined by a space.
fn one_line(call: &str) -> String {
    if !call.contains('\n') {
        return call.to_string();
    }
    call.lines()
        .map(str::trim)
        .filter(|line| !line.is_empty())
        .collect::<Vec<_>>()
        .join(" ")
}

/// The active entry call: the first of [`discover`]'s list.
pub fn active(calls: &[EntryCall]) -> Option<&EntryCall> {
    calls.first()
}

fn normalise(call: &str) -> String {
    call.chars().filter(|c| !c.is_whitespace()).collect()
}

/// Whether a call of `callee` starts `function`: by name for functions; for
/// methods, `something.method(...)` where the text names the class or the
/// object is not a bare parameter.
fn calls_function(callee: &str, is_attribute: bool, text: &str, function: &Function) -> bool {
    if callee != function.name {
        return false;
    }
    match &function.kind {
        FunctionKind::Function => !is_attribute,
        FunctionKind::Method { class } => {
            is_attribute && (text.starts_with(class.as_str()) || text.contains('('))
        }
        FunctionKind::Nested => false,
    }
}

/// Whether `call` (an `# ndb:` comment's text) is one call of `function`.
fn calls_of(call: &str, function: &Function) -> bool {
    parser().parse(call, None).is_some_and(|tree| {
        lone_call(&tree, false).is_some_and(|node| is_call_of(node, call, function))
    })
}

/// The entry call of a doctest example, when the example is a call of the
/// function (possibly assigned: `>>> y = f(3)`) that the tracer can
/// evaluate.
fn doctest_call(source: &str, function: &Function, analysis: &Analysis) -> Option<String> {
    let tree = parser().parse(source, None)?;
    let expression = lone_call(&tree, true)?;
    if !is_call_of(expression, source, function) {
        return None;
    }
    is_evaluable(expression, source.as_bytes(), &|name| {
        analysis.is_module_name(name)
    })
    .then(|| expression.utf8_text(source.as_bytes()).ok())
    .flatten()
    .map(str::to_string)
}

/// The call a one-statement text consists of (with `assigned`, also the
/// right side of `y = f(3)`).
fn lone_call(tree: &Tree, assigned: bool) -> Option<Node<'_>> {
    let root = tree.root_node();
    if root.has_error() || root.named_child_count() != 1 {
        return None;
    }
    let statement = root.named_child(0)?;
    if statement.kind() != "expression_statement" {
        return None;
    }
    let mut expression = statement.named_child(0)?;
    if assigned && expression.kind() == "assignment" {
        expression = expression.child_by_field_name("right")?;
    }
    (expression.kind() == "call").then_some(expression)
}

/// Whether the call node `call` (in `source`) starts `function`.
fn is_call_of(call: Node, source: &str, function: &Function) -> bool {
    let Some(callee_node) = call.child_by_field_name("function") else {
        return false;
    };
    let (callee, is_attribute) = match callee_node.kind() {
        "identifier" => (Some(callee_node), false),
        "attribute" => (callee_node.child_by_field_name("attribute"), true),
        _ => (None, false),
    };
    let text = call.utf8_text(source.as_bytes()).unwrap_or("");
    callee
        .and_then(|callee| callee.utf8_text(source.as_bytes()).ok())
        .is_some_and(|callee| calls_function(callee, is_attribute, text, function))
}

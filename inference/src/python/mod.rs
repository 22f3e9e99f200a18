//! Python source as every front end reads it, with tree-sitter-python: the
//! language server (one open document at a time, reparsed incrementally),
//! the agent tools and the command line (a whole file at once through
//! [`PythonFile`]). One reading, so that a file gives the same functions,
//! parameters, doctests, main-block calls and entry calls wherever it is
//! asked about (`tests/python_reader.rs` holds the front ends to it).
//!
//! - [`syntax`]: functions, methods, nested functions, parameters,
//!   docstrings and doctest examples, `# ndb:` comments, calls, the main
//!   guard, in byte offsets and 0-based lines;
//! - [`entry_calls`]: the calls that can start a function, best first;
//! - [`line_index`]: line starts and the conversions between byte offsets and
//!   `(line, column)` positions in UTF-8, UTF-16 or UTF-32 units.
//!
//! Every parse is bounded in CPU time ([`parse_bounded`]): tree-sitter's
//! error recovery on some large broken texts runs for tens of seconds.

pub mod entry_calls;
pub mod line_index;
pub mod syntax;

use std::sync::{Arc, OnceLock};
use std::time::{Duration, Instant};

use ndb_grammar::locate::FunctionSpan;
use ndb_grammar::Source;
use tree_sitter::{ParseOptions, Parser, Tree};

use entry_calls::{EntryCall, ExternalCalls, UserEntryCalls};
use line_index::LineIndex;
use syntax::Analysis;

/// A new tree-sitter parser for Python.
pub fn parser() -> Parser {
    let mut parser = Parser::new();
    parser
        .set_language(&tree_sitter_python::LANGUAGE.into())
        .expect("the bundled tree-sitter-python grammar matches the tree-sitter library");
    parser
}

/// The most CPU time a parse may take. tree-sitter parses real files in
/// milliseconds, but its error recovery on some large broken texts runs
/// for tens of seconds (found by the LSP fuzz driver: a 140 KB file of
/// unbalanced brackets); no front end may stall on one. CPU time, not
/// wall time, so that a busy machine does not cut off honest parses.
pub const PARSE_BUDGET: Duration = Duration::from_millis(1500);

/// CPU time used by the calling thread (wall time since the first call on
/// platforms without a per-thread clock).
fn thread_time() -> Duration {
    #[cfg(unix)]
    {
        let mut now = libc::timespec {
            tv_sec: 0,
            tv_nsec: 0,
        };
        // SAFETY: `now` is a valid timespec for the call to fill.
        if unsafe { libc::clock_gettime(libc::CLOCK_THREAD_CPUTIME_ID, &mut now) } == 0 {
            return Duration::new(now.tv_sec as u64, now.tv_nsec as u32);
        }
    }
    static START: OnceLock<Instant> = OnceLock::new();
    START.get_or_init(Instant::now).elapsed()
}

thread_local! {
    static PARSES: std::cell::Cell<u64> = const { std::cell::Cell::new(0) };
}

/// How many parses this thread has made: a test's count of the parses one
/// question makes.
pub fn parses_on_this_thread() -> u64 {
    PARSES.with(std::cell::Cell::get)
}

/// Parses `text` (incrementally from `old_tree`, already edited to match)
/// within [`PARSE_BUDGET`]. `None` when the parse was stopped: the text
/// then has no tree, and what needs one stays quiet for it (a line on
/// stderr says so).
pub fn parse_bounded(parser: &mut Parser, text: &str, old_tree: Option<&Tree>) -> Option<Tree> {
    parse_within(parser, text, old_tree, PARSE_BUDGET)
}

/// [`parse_bounded`] with another budget.
pub fn parse_within(
    parser: &mut Parser,
    text: &str,
    old_tree: Option<&Tree>,
    budget: Duration,
) -> Option<Tree> {
    PARSES.with(|parses| parses.set(parses.get() + 1));
    let bytes = text.as_bytes();
    let deadline = thread_time() + budget;
    let mut past_deadline = |_: &tree_sitter::ParseState| thread_time() > deadline;
    let tree = parser.parse_with_options(
        &mut |offset, _| bytes.get(offset..).unwrap_or_default(),
        old_tree,
        Some(ParseOptions::new().progress_callback(&mut past_deadline)),
    );
    if tree.is_none() {
        // A stopped parse would otherwise resume on the next call.
        parser.reset();
        eprintln!(
            "ndb: parsing {} bytes of Python took over {:.1} s and was stopped; \
             its functions are not known until it parses",
            text.len(),
            budget.as_secs_f64()
        );
    }
    tree
}

/// Every function of `text` as the grammar's spans
/// ([`PythonFile::function_spans`]).
pub fn function_spans(text: &str) -> Vec<FunctionSpan> {
    PythonFile::parse(text).function_spans()
}

/// The functions an [`Analysis`] found, as the grammar's spans in file
/// order (the language server's documents read their own analysis).
pub fn spans_of(analysis: &Analysis) -> Vec<FunctionSpan> {
    let mut spans: Vec<FunctionSpan> = analysis
        .functions
        .iter()
        .map(|function| FunctionSpan {
            name: function.name.clone(),
            first_line: function.first_line as u32 + 1,
            def_line: function.def_line as u32 + 1,
            body_line: function.body_start_line as u32 + 1,
            end_line: function.body_end_line as u32 + 1,
            indent: function.indent.len(),
        })
        .collect();
    spans.sort_by_key(|span| span.def_line);
    spans
}

/// `text` read once for the questions about it: its lines and its
/// functions' spans ([`Source`]).
pub fn read_source(text: impl Into<Arc<str>>) -> Arc<Source> {
    PythonFile::parse(text).source()
}

/// A whole file, read once: its tree (when the parse finished within the
/// budget) and what [`Analysis`] finds in it.
pub struct PythonFile {
    text: Arc<str>,
    tree: Option<Tree>,
    analysis: Analysis,
}

/// The first place tree-sitter could not parse (1-based line and column).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SyntaxError {
    pub line: u32,
    pub column: u32,
    /// The text of the offending line, trimmed.
    pub text: String,
}

impl PythonFile {
    pub fn parse(text: impl Into<Arc<str>>) -> PythonFile {
        let text = text.into();
        let tree = parse_bounded(&mut parser(), &text, None);
        let analysis = Analysis::new(&text, tree.as_ref(), &LineIndex::new(&text));
        PythonFile {
            text,
            tree,
            analysis,
        }
    }

    pub fn text(&self) -> &str {
        &self.text
    }

    /// The file as the questions about it read it: its text (shared, not
    /// copied), its lines and its functions' spans.
    pub fn source(&self) -> Arc<Source> {
        Arc::new(Source::new(self.text.clone(), self.function_spans()))
    }

    pub fn analysis(&self) -> &Analysis {
        &self.analysis
    }

    /// The entry calls of the function at `index` the file itself offers,
    /// best first (nothing the user chose, no test files).
    pub fn entry_calls(&self, index: usize) -> Vec<EntryCall> {
        entry_calls::discover(
            &self.analysis,
            index,
            &UserEntryCalls::default(),
            &ExternalCalls::default(),
        )
    }

    /// Every function of the file (methods and nested ones included) as
    /// the grammar's plain spans, in file order: what the model's
    /// locator, the breakpoint grammar and the jumps read of the source.
    pub fn function_spans(&self) -> Vec<FunctionSpan> {
        spans_of(&self.analysis)
    }

    /// The module-level function `name`, by index.
    pub fn function(&self, name: &str) -> Option<usize> {
        self.analysis.functions.iter().position(|function| {
            function.kind == syntax::FunctionKind::Function && function.name == name
        })
    }

    /// The first syntax error, in source order; a parse stopped by its
    /// budget is reported at the first line.
    pub fn syntax_error(&self) -> Option<SyntaxError> {
        let Some(tree) = &self.tree else {
            return Some(SyntaxError {
                line: 1,
                column: 1,
                text: "(the file took too long to parse)".to_string(),
            });
        };
        let root = tree.root_node();
        if !root.has_error() {
            return None;
        }
        let mut stack = vec![root];
        let mut first: Option<tree_sitter::Node> = None;
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
        let line = node.start_position().row as u32 + 1;
        Some(SyntaxError {
            line,
            column: node.start_position().column as u32 + 1,
            text: ndb_grammar::state::source_line(&self.text, line)
                .trim()
                .to_string(),
        })
    }
}

/// Why an entry call is not a call of a function by its name.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum EntryCallError {
    #[error("the entry call is empty; write a call such as `f([1, 2])`")]
    Empty,
    #[error("the entry call must be one expression on one line")]
    MultiLine,
    #[error("`{0}` is not a call expression such as `f([1, 2], k=3)`")]
    NotACall(String),
    #[error("`{0}` must call a function of the file by its name, such as `f(...)`")]
    NotByName(String),
}

/// The name an entry call such as `f([1, 2], k=3)` calls.
pub fn callee_of(entry_call: &str) -> Result<String, EntryCallError> {
    let entry_call = entry_call.trim();
    if entry_call.is_empty() {
        return Err(EntryCallError::Empty);
    }
    if entry_call.contains('\n') {
        return Err(EntryCallError::MultiLine);
    }
    let not_a_call = || EntryCallError::NotACall(entry_call.to_string());
    let tree = parse_bounded(&mut parser(), entry_call, None).ok_or_else(not_a_call)?;
    let root = tree.root_node();
    let expression = root
        .named_child(0)
        .filter(|statement| {
            root.named_child_count() == 1 && statement.kind() == "expression_statement"
        })
        .and_then(|statement| statement.named_child(0));
    let call = match expression {
        Some(node) if !root.has_error() && node.kind() == "call" => node,
        _ => return Err(not_a_call()),
    };
    call.child_by_field_name("function")
        .filter(|callee| callee.kind() == "identifier")
        .and_then(|callee| callee.utf8_text(entry_call.as_bytes()).ok())
        .map(str::to_string)
        .ok_or_else(|| EntryCallError::NotByName(entry_call.to_string()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_parse_past_its_budget_stops_and_the_parser_starts_afresh() {
        // Enough text that the parser checks its progress callback.
        let long = "def f(x):\n    return [x, (x + 1), {x: x}]\n".repeat(2000);
        let mut reused = parser();
        assert!(parse_within(&mut reused, &long, None, Duration::ZERO).is_none());
        // The stopped parse is not resumed into the next document's tree.
        let tree = parse_bounded(&mut reused, "def g(y):\n    return y\n", None).unwrap();
        assert_eq!(
            tree.root_node().to_sexp(),
            parser()
                .parse("def g(y):\n    return y\n", None)
                .unwrap()
                .root_node()
                .to_sexp()
        );
        assert!(!tree.root_node().has_error());
        assert!(parse_bounded(&mut reused, &long, None).is_some());
    }

    #[test]
    fn callee_of_accepts_only_plain_calls() {
        assert_eq!(callee_of("f([1, 2], k=3)"), Ok("f".to_string()));
        assert!(matches!(callee_of("f("), Err(EntryCallError::NotACall(_))));
        assert!(matches!(
            callee_of("x + 1"),
            Err(EntryCallError::NotACall(_))
        ));
        assert!(matches!(
            callee_of("obj.method(1)"),
            Err(EntryCallError::NotByName(_))
        ));
        assert_eq!(callee_of(""), Err(EntryCallError::Empty));
        assert_eq!(callee_of("f(1)\ng(2)"), Err(EntryCallError::MultiLine));
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

    #[test]
    fn parameters_say_how_they_take_their_arguments() {
        use syntax::ParameterKind::*;
        let file = PythonFile::parse(
            "def f(a, b=2, /, c: int = 3, *args, d, e=5, **kw) -> int:\n    pass\n",
        );
        let function = &file.analysis().functions[0];
        let kinds: Vec<(&str, syntax::ParameterKind)> = function
            .parameters
            .iter()
            .map(|parameter| (parameter.name.as_str(), parameter.kind))
            .collect();
        assert_eq!(
            kinds,
            [
                ("a", Positional),
                ("b", Positional),
                ("c", Positional),
                ("args", VarPositional),
                ("d", KeywordOnly),
                ("e", KeywordOnly),
                ("kw", VarKeyword)
            ]
        );
        assert_eq!(
            function.signature,
            "def f(a, b=2, /, c: int = 3, *args, d, e=5, **kw) -> int"
        );
        let keyword = PythonFile::parse("def g(x, *, y):\n    pass\n");
        assert_eq!(
            keyword.analysis().functions[0].parameters[1].kind,
            KeywordOnly
        );
    }

    #[test]
    fn both_spellings_of_the_main_guard_count() {
        for guard in ["__name__ == '__main__'", "\"__main__\" == __name__"] {
            let file = PythonFile::parse(format!(
                "def f(x):\n    return x\n\nif {guard}:\n    f(2)\n"
            ));
            let calls = file.entry_calls(0);
            assert_eq!(calls.len(), 1, "{guard}");
            assert_eq!(calls[0].origin, entry_calls::Origin::MainBlock, "{guard}");
        }
    }
}

#[cfg(test)]
mod spans_tests {
    use ndb_grammar::locate::FunctionSpan;

    fn span(name: &str, first: u32, def: u32, end: u32, indent: usize) -> FunctionSpan {
        FunctionSpan::one_line_header(name, first, def, end, indent)
    }

    /// The spans the grammar's tests take as data (grammar/src/locate.rs,
    /// grammar/src/lark.rs) are what the reader finds.
    #[test]
    fn the_grammar_tests_spans_are_the_readers() {
        let source = "import math\n\n@decorator\ndef outer(xs):\n    total = 0\n    for x in xs:\n        total += helper(x)\n    return total\n\ndef helper(x):\n    def inner(y):\n        return y * 2\n    return inner(x)\n";
        assert_eq!(
            super::function_spans(source),
            [
                span("outer", 3, 4, 8, 0),
                span("helper", 10, 10, 13, 0),
                span("inner", 11, 11, 12, 4)
            ]
        );
        let source = "def evens(nums):\n    result = []\n    for n in nums:\n        if n % 2 == 0:\n            result.append(n)\n    return result\n\n\n@cache\ndef odds(nums):\n    result = [n for n in nums if n % 2]\n    return result\n\n\ndef shout(words):\n    def up(w):\n        return w.upper()\n    return ' '.join(up(w) for w in words)\n";
        assert_eq!(
            super::function_spans(source),
            [
                span("evens", 1, 1, 6, 0),
                span("odds", 9, 10, 12, 0),
                span("shout", 15, 15, 18, 0),
                span("up", 16, 16, 17, 4)
            ]
        );
    }

    /// Where reading by indentation went wrong: a `def` inside a string is
    /// no function, a docstring's unindented lines do not end the body,
    /// trailing comments are not the body's, a header may span lines and a
    /// body may sit on the `def` line.
    #[test]
    fn spans_follow_the_syntax_not_the_indentation() {
        let source = "def f(a,\n      b):\n    '''Doc\nstring at column 0\n'''\n    return a + b\n    # a comment\n\ntext = '''\ndef g(x):\n    pass\n'''\n\ndef h(x): return x\n";
        let mut f = span("f", 1, 1, 6, 0);
        f.body_line = 3;
        let mut h = span("h", 14, 14, 14, 0);
        h.body_line = 14;
        assert_eq!(super::function_spans(source), [f, h]);
    }
}

//! What the tools show of a Python file, from the one Python reader every
//! front end shares (`ndb_inference::python`): its functions with
//! signatures and line ranges, the entry calls the file itself offers (the
//! same list, in the same order, as the editor's), and the first syntax
//! error. Plain data with 1-based lines.

use ndb_inference::python::entry_calls::Origin;
use ndb_inference::python::syntax::{FunctionKind, ParameterKind};
pub use ndb_inference::python::{callee_of, SyntaxError};

/// At most this many entry calls are listed per function.
const MAX_ENTRY_CALLS: usize = 5;

/// One function or method of the file.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Function {
    pub name: String,
    /// `Class.method` for methods, `outer.inner` for nested functions, the
    /// name otherwise.
    pub qualified_name: String,
    /// The `def` line (decorators are above it).
    pub line: u32,
    /// The last line of the body.
    pub end_line: u32,
    /// Such as `def f(xs, k=3) -> int`, on one line.
    pub signature: String,
    /// Names, with `*` and `**` for the splats.
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
    /// A `>>> f(...)` line of the function's docstring.
    Doctest,
    /// A call under `if __name__ == "__main__":`.
    Main,
    /// A call elsewhere in the file that can be evaluated on import.
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

    fn of(origin: &Origin) -> Option<EntryOrigin> {
        match origin {
            Origin::NdbComment => Some(EntryOrigin::Comment),
            Origin::Doctest => Some(EntryOrigin::Doctest),
            Origin::MainBlock => Some(EntryOrigin::Main),
            Origin::SameFile => Some(EntryOrigin::Call),
            // Choices made in an editor and test files are not the file's.
            Origin::Chosen | Origin::Accepted | Origin::TestFile(_) => None,
        }
    }
}

/// A parsed file.
pub struct PythonFile(ndb_inference::python::PythonFile);

impl PythonFile {
    pub fn parse(source: impl Into<std::sync::Arc<str>>) -> PythonFile {
        PythonFile(ndb_inference::python::PythonFile::parse(source))
    }

    /// The file as the debugger's questions read it (lines and spans).
    pub fn source(&self) -> std::sync::Arc<ndb_grammar::Source> {
        self.0.source()
    }

    /// The first syntax error, in source order.
    pub fn syntax_error(&self) -> Option<SyntaxError> {
        self.0.syntax_error()
    }

    /// Every function and method, in source order; top-level functions with
    /// their entry calls (for a module-level function the shared reader
    /// keeps only calls of it by name).
    pub fn functions(&self) -> Vec<Function> {
        let text = self.0.text();
        let analysis = self.0.analysis();
        analysis
            .functions
            .iter()
            .enumerate()
            .map(|(index, function)| {
                let top_level = function.kind == FunctionKind::Function;
                let entry_calls = if top_level {
                    self.0
                        .entry_calls(index)
                        .into_iter()
                        .filter_map(|entry| {
                            Some(EntryCall {
                                origin: EntryOrigin::of(&entry.origin)?,
                                line: entry.line? as u32 + 1,
                                call: entry.call,
                            })
                        })
                        .take(MAX_ENTRY_CALLS)
                        .collect()
                } else {
                    Vec::new()
                };
                // The definition ends after its last character; a range that
                // ends with the line break ends on the line before.
                let ends_with_newline = text[..function.range.end].ends_with('\n');
                let end_line = function.last_line + usize::from(!ends_with_newline);
                Function {
                    name: function.name.clone(),
                    qualified_name: function.qualified_name.clone(),
                    line: function.def_line as u32 + 1,
                    end_line: end_line as u32,
                    signature: function.signature.clone(),
                    parameters: function
                        .parameters
                        .iter()
                        .map(|parameter| match parameter.kind {
                            ParameterKind::VarPositional => format!("*{}", parameter.name),
                            ParameterKind::VarKeyword => format!("**{}", parameter.name),
                            _ => parameter.name.clone(),
                        })
                        .collect(),
                    method: matches!(function.kind, FunctionKind::Method { .. }),
                    top_level,
                    entry_calls,
                }
            })
            .collect()
    }
}

//! The text edits that write an accepted suggestion into the code, as the
//! user prefers: a doctest example in the function's docstring (one is added
//! when missing), a pytest test in the workspace's test file for the module
//! (or a new `test_<module>.py`), or an `# ndb:` entry-call comment above the
//! `def`. Pure: byte ranges of a given text and the text to put there. Only
//! ever applied when the user chose the suggestion.

use std::ops::Range;

use crate::document::DocumentSnapshot;
use crate::syntax::Function;

/// One replacement in one text.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Edit {
    pub range: Range<usize>,
    pub text: String,
}

/// What running the call gives, as the inserted test expects it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Expected {
    /// The return value's repr, or the exception's repr when `raised`.
    pub value: Option<String>,
    pub raised: bool,
    /// `Some(true)`: running the call gave this (verified); `Some(false)`:
    /// it did not (refuted); `None`: not run.
    pub verified: Option<bool>,
    /// "5/8 agree", for the mark.
    pub agreement: String,
}

impl Expected {
    fn mark(&self) -> String {
        let verdict = match self.verified {
            Some(true) => "verified by running",
            Some(false) => "refuted by running",
            None => "not run",
        };
        format!("ndb: predicted, {}, {verdict}", self.agreement)
    }
}

/// The exception's class name in a repr such as `ValueError('bad')`.
fn exception_name(value: &str) -> &str {
    value.split('(').next().unwrap_or(value).trim()
}

/// A doctest example `>>> call` with the expected output, inserted before
/// the docstring's closing quotes, or a new docstring when there is none.
pub fn doctest(
    document: &DocumentSnapshot,
    function: &Function,
    call: &str,
    expected: &Expected,
) -> Edit {
    let indent = &function.body_indent;
    let mut example = format!("{indent}>>> {call}  # {}\n", expected.mark());
    if expected.raised {
        // The doctest directive must end the line: doctest reads everything
        // after `doctest:` as options.
        example = format!(
            "{indent}>>> {call}  # {}  # doctest: +IGNORE_EXCEPTION_DETAIL\n{indent}Traceback (most recent call last):\n{indent}    ...\n{indent}{}: ...\n",
            expected.mark(),
            exception_name(expected.value.as_deref().unwrap_or("Exception"))
        );
    } else if let Some(value) = expected.value.as_deref().filter(|value| *value != "None") {
        example.push_str(&format!("{indent}{value}\n"));
    }
    let text = &document.text;
    match &function.docstring {
        Some(docstring) => {
            let closing = docstring.closing_quotes;
            let line_index = &document.line_index;
            let closing_line = line_index.line_of(closing);
            let line_start = line_index.line_start(closing_line).unwrap_or(closing);
            let before_closing = &text[line_start..closing];
            if before_closing.trim().is_empty() {
                // Closing quotes on their own line: the example goes above.
                Edit {
                    range: line_start..line_start,
                    text: format!("{}{example}", blank_line_if_needed(text, line_start)),
                }
            } else {
                // `"""One line."""`: break the line before the quotes.
                Edit {
                    range: closing..closing,
                    text: format!("\n\n{example}{indent}"),
                }
            }
        }
        None => {
            let line_start = document
                .line_index
                .line_start(function.body_line)
                .unwrap_or(text.len());
            Edit {
                range: line_start..line_start,
                text: format!("{indent}\"\"\"\n{example}{indent}\"\"\"\n"),
            }
        }
    }
}

/// A blank docstring line before a new example unless the previous line is
/// blank or is itself the opening line or an example's output.
fn blank_line_if_needed(text: &str, line_start: usize) -> String {
    let before = text[..line_start].trim_end_matches('\n');
    let previous = before.rsplit('\n').next().unwrap_or("").trim();
    if previous.is_empty() || previous.starts_with(">>>") || previous.ends_with("\"\"\"") {
        String::new()
    } else {
        "\n".to_string()
    }
}

/// A `# ndb: call` comment directly above the function (above its
/// decorators); replaces the nearest existing one.
pub fn ndb_comment(
    document: &DocumentSnapshot,
    function: &Function,
    existing: Option<Range<usize>>,
    call: &str,
) -> Edit {
    let line = format!("{}# ndb: {call}", function.indent);
    match existing {
        Some(range) => Edit { range, text: line },
        None => {
            let start = document
                .line_index
                .line_start(function.first_line)
                .unwrap_or(document.text.len());
            Edit {
                range: start..start,
                text: format!("{line}\n"),
            }
        }
    }
}

/// A pytest test appended to `test_text` (the test file's current text, or
/// `None` for a new file), importing the function from `module` when the
/// file does not already.
pub fn pytest(
    test_text: Option<&str>,
    module: &str,
    function: &str,
    call: &str,
    expected: &Expected,
) -> Edit {
    let existing = test_text.unwrap_or("");
    let mut header = String::new();
    let imports_function = existing.lines().any(|line| {
        let line = line.trim();
        line.starts_with(&format!("from {module} import"))
            && line
                .split("import")
                .nth(1)
                .is_some_and(|names| names.split(',').any(|name| name.trim() == function))
    });
    let qualified = existing
        .lines()
        .any(|line| line.trim() == format!("import {module}"));
    let call_text = if !imports_function && qualified {
        format!("{module}.{call}")
    } else {
        call.to_string()
    };
    if !imports_function && !qualified {
        header.push_str(&format!("from {module} import {function}\n"));
    }
    if expected.raised && !existing.lines().any(|line| line.trim() == "import pytest") {
        header.push_str("import pytest\n");
    }
    let mut number = 1;
    while existing.contains(&format!("def test_{function}_ndb_{number}(")) {
        number += 1;
    }
    let body = if expected.raised {
        format!(
            "    with pytest.raises({}):\n        {call_text}\n",
            exception_name(expected.value.as_deref().unwrap_or("Exception"))
        )
    } else {
        format!(
            "    assert {call_text} == {}\n",
            expected.value.as_deref().unwrap_or("None")
        )
    };
    let test = format!(
        "def test_{function}_ndb_{number}():\n    # {}\n{body}",
        expected.mark()
    );
    if existing.is_empty() {
        return Edit {
            range: 0..0,
            text: format!("{header}\n\n{test}"),
        };
    }
    // Imports go after the file's last top-level import; the test at the end.
    let mut text = String::new();
    let separator = if existing.ends_with("\n\n") {
        "\n"
    } else if existing.ends_with('\n') {
        "\n\n"
    } else {
        "\n\n\n"
    };
    text.push_str(separator);
    text.push_str(&test);
    if header.is_empty() {
        return Edit {
            range: existing.len()..existing.len(),
            text,
        };
    }
    // Two edits would be needed; one replacement of the whole text keeps the
    // protocol side simple and exact.
    let insert_at = last_import_end(existing);
    let mut whole = String::with_capacity(existing.len() + header.len() + text.len());
    whole.push_str(&existing[..insert_at]);
    whole.push_str(&header);
    whole.push_str(&existing[insert_at..]);
    whole.push_str(&text);
    Edit {
        range: 0..existing.len(),
        text: whole,
    }
}

fn last_import_end(text: &str) -> usize {
    let mut offset = 0;
    let mut end = 0;
    for line in text.split_inclusive('\n') {
        if line.starts_with("import ") || line.starts_with("from ") {
            end = offset + line.len();
        }
        offset += line.len();
    }
    end
}

//! The insertion of an accepted suggestion as a doctest, a pytest test or an
//! `# ndb:` comment, on fixtures, as the resulting text.

use ndb_lsp::document::DocumentSnapshot;
use ndb_lsp::edits::{self, Edit, Expected};

fn applied(text: &str, edit: &Edit) -> String {
    let mut result = text.to_string();
    result.replace_range(edit.range.clone(), &edit.text);
    result
}

fn expected(value: &str, raised: bool, verified: Option<bool>) -> Expected {
    Expected {
        value: Some(value.to_string()),
        raised,
        verified,
        agreement: "5/8 agree".to_string(),
    }
}

const SOURCE: &str = r#"import math


@staticmethod
def no_docstring(a, b):
    return a + b


def with_docstring(xs):
    """Largest element.

    >>> with_docstring([1])
    1
    """
    return max(xs)


class Shape:
    def area(self):
        """Area."""
        return 0
"#;

#[test]
fn doctests_comments_and_tests() {
    let document = DocumentSnapshot::parse(SOURCE);
    let analysis = document.analysis();
    let function = |name: &str| {
        analysis
            .functions
            .iter()
            .find(|f| f.qualified_name == name)
            .unwrap()
            .clone()
    };
    let mut out = String::new();
    let edit = edits::doctest(
        &document,
        &function("no_docstring"),
        "no_docstring(1, 2)",
        &expected("3", false, Some(true)),
    );
    out.push_str("== doctest into a function without a docstring\n");
    out.push_str(&applied(SOURCE, &edit));
    let edit = edits::doctest(
        &document,
        &function("with_docstring"),
        "with_docstring([])",
        &expected("ValueError('max() arg is an empty sequence')", true, None),
    );
    out.push_str("== doctest of an exception into an existing docstring\n");
    out.push_str(&applied(SOURCE, &edit));
    let edit = edits::doctest(
        &document,
        &function("Shape.area"),
        "Shape().area()",
        &expected("0", false, Some(false)),
    );
    out.push_str("== doctest into a one-line docstring\n");
    out.push_str(&applied(SOURCE, &edit));
    let edit = edits::ndb_comment(
        &document,
        &function("no_docstring"),
        None,
        "no_docstring(1, 2)",
    );
    out.push_str("== # ndb: comment above the decorators\n");
    out.push_str(&applied(SOURCE, &edit));
    let test_file =
        "import pytest\nfrom shapes import other\n\n\ndef test_other():\n    assert other() == 1\n";
    let edit = edits::pytest(
        Some(test_file),
        "shapes",
        "no_docstring",
        "no_docstring(1, 2)",
        &expected("3", false, Some(true)),
    );
    out.push_str("== pytest test appended to an existing test file\n");
    out.push_str(&applied(test_file, &edit));
    let edit = edits::pytest(
        None,
        "shapes",
        "with_docstring",
        "with_docstring([])",
        &expected("ValueError('empty')", true, None),
    );
    out.push_str("== pytest test in a new file\n");
    out.push_str(&applied("", &edit));
    insta::assert_snapshot!(out);
}

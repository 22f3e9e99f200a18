//! One open document: its text, version, line index and tree-sitter tree,
//! kept up to date by incremental edits (byte ranges) and incremental
//! reparses. Snapshots are cheap clones handed to blocking threads.

use std::hash::{Hash, Hasher};
use std::ops::Range;
use std::sync::{Arc, OnceLock};

use tree_sitter::{InputEdit, Parser, Point, Tree};

use crate::line_index::{LineColumn, LineIndex, PositionEncoding};
use crate::syntax::Analysis;
use ndb_inference::debugger::Source;

pub use ndb_inference::python::{parse_bounded, parser as python_parser, PARSE_BUDGET};

/// A 64-bit hash of a source text: the key of every cached prediction (the
/// same text gives the same answer, whatever the document or version).
pub fn source_hash(text: &str) -> u64 {
    let mut hasher = std::collections::hash_map::DefaultHasher::new();
    text.hash(&mut hasher);
    hasher.finish()
}

/// An open document.
pub struct Document {
    parser: Parser,
    snapshot: DocumentSnapshot,
}

/// One version of a document, immutable and cheap to clone.
#[derive(Clone)]
pub struct DocumentSnapshot {
    pub version: i32,
    pub text: Arc<str>,
    pub line_index: Arc<LineIndex>,
    pub tree: Option<Tree>,
    pub hash: u64,
    analysis: Arc<OnceLock<Arc<Analysis>>>,
    source: Arc<OnceLock<Arc<Source>>>,
}

impl DocumentSnapshot {
    pub fn new(text: &str, version: i32, tree: Option<Tree>) -> DocumentSnapshot {
        DocumentSnapshot {
            version,
            text: Arc::from(text),
            line_index: Arc::new(LineIndex::new(text)),
            tree,
            hash: source_hash(text),
            analysis: Arc::default(),
            source: Arc::default(),
        }
    }

    /// Parses `text` from scratch (for files that are not open, tests).
    pub fn parse(text: &str) -> DocumentSnapshot {
        let tree = parse_bounded(&mut python_parser(), text, None);
        DocumentSnapshot::new(text, 0, tree)
    }

    /// Functions, calls and names of this version, computed once.
    pub fn analysis(&self) -> Arc<Analysis> {
        self.analysis
            .get_or_init(|| {
                Arc::new(Analysis::new(
                    &self.text,
                    self.tree.as_ref(),
                    &self.line_index,
                ))
            })
            .clone()
    }

    /// This version as the debugger's questions read it: the text (shared),
    /// its lines, split once, and its functions from [`Self::analysis`];
    /// made once per version and handed down to every question.
    pub fn source(&self) -> Arc<Source> {
        self.source
            .get_or_init(|| {
                Arc::new(Source::new(
                    self.text.clone(),
                    ndb_inference::python::spans_of(&self.analysis()),
                ))
            })
            .clone()
    }
}

/// One change: a byte range of the current text (or the whole text) and its
/// replacement.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TextChange {
    pub range: Option<Range<usize>>,
    pub text: String,
}

/// A change as the protocol gives it: a range of `(line, column)`
/// positions in the negotiated encoding, relative to the text the previous
/// change of the same notification left (no range: the whole text).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PositionedChange {
    pub range: Option<Range<LineColumn>>,
    pub text: String,
}

/// How one change moved lines, for what is kept by line (breakpoints):
/// lines `start_line..=end_line` were replaced by `inserted`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LineShift {
    pub start_line: usize,
    pub end_line: usize,
    pub inserted: String,
    /// An insertion at the start of a line (only whitespace before it on
    /// the line) that ends with a line break: the line itself moves down.
    pub at_line_start: bool,
}

impl Document {
    pub fn new(text: &str, version: i32) -> Document {
        let mut parser = python_parser();
        let tree = parse_bounded(&mut parser, text, None);
        Document {
            parser,
            snapshot: DocumentSnapshot::new(text, version, tree),
        }
    }

    pub fn snapshot(&self) -> DocumentSnapshot {
        self.snapshot.clone()
    }

    pub fn text(&self) -> &str {
        &self.snapshot.text
    }

    pub fn line_index(&self) -> &LineIndex {
        &self.snapshot.line_index
    }

    pub fn version(&self) -> i32 {
        self.snapshot.version
    }

    /// Applies `changes` in order (each relative to the text the previous one
    /// left), edits the old tree to match and reparses once, incrementally.
    /// Ranges are clamped to the text and to character boundaries, so a
    /// confused client cannot make this panic.
    /// Applies the changes of one `didChange` notification: each position is
    /// converted against the text the previous change left. Returns how each
    /// change moved lines.
    pub fn apply_positioned(
        &mut self,
        changes: Vec<PositionedChange>,
        version: i32,
        encoding: PositionEncoding,
    ) -> Vec<LineShift> {
        let mut byte_changes = Vec::with_capacity(changes.len());
        let mut shifts = Vec::new();
        let mut text = self.text().to_string();
        let mut index = self.line_index().clone();
        let count = changes.len();
        for (number, change) in changes.into_iter().enumerate() {
            let range = change.range.map(|range| {
                let start = index.offset(&text, range.start, encoding);
                let end = index.offset(&text, range.end, encoding);
                start..end.max(start)
            });
            match &range {
                Some(range) => {
                    let start_line = index.line_of(range.start);
                    let line_start = index.line_start(start_line).unwrap_or(0);
                    shifts.push(LineShift {
                        start_line,
                        end_line: index.line_of(range.end),
                        inserted: change.text.clone(),
                        at_line_start: range.is_empty()
                            && text[line_start..range.start].trim().is_empty()
                            && change.text.ends_with('\n'),
                    });
                    text.replace_range(range.clone(), &change.text);
                }
                None => text.clone_from(&change.text),
            }
            if number + 1 < count {
                index = LineIndex::new(&text);
            }
            byte_changes.push(TextChange {
                range,
                text: change.text,
            });
        }
        self.apply_changes(&byte_changes, version);
        shifts
    }

    pub fn apply_changes(&mut self, changes: &[TextChange], version: i32) {
        let mut text = self.snapshot.text.to_string();
        let mut tree = self.snapshot.tree.take();
        for change in changes {
            match &change.range {
                None => {
                    text.clone_from(&change.text);
                    tree = None;
                }
                Some(range) => {
                    let start = crate::line_index::floor_char_boundary(&text, range.start);
                    let end = crate::line_index::floor_char_boundary(&text, range.end.max(start));
                    let new_end = start + change.text.len();
                    if let Some(tree) = tree.as_mut() {
                        let edit = InputEdit {
                            start_byte: start,
                            old_end_byte: end,
                            new_end_byte: new_end,
                            start_position: point_of(&text, start),
                            old_end_position: point_of(&text, end),
                            new_end_position: point_after(point_of(&text, start), &change.text),
                        };
                        tree.edit(&edit);
                    }
                    text.replace_range(start..end, &change.text);
                }
            }
        }
        let tree = parse_bounded(&mut self.parser, &text, tree.as_ref());
        self.snapshot = DocumentSnapshot::new(&text, version, tree);
    }
}

/// The tree-sitter point (row, byte column) of `offset`.
fn point_of(text: &str, offset: usize) -> Point {
    let before = &text.as_bytes()[..offset];
    let row = before.iter().filter(|&&byte| byte == b'\n').count();
    let line_start = before
        .iter()
        .rposition(|&byte| byte == b'\n')
        .map_or(0, |index| index + 1);
    Point::new(row, offset - line_start)
}

/// The point reached after inserting `inserted` at `start`.
fn point_after(start: Point, inserted: &str) -> Point {
    match inserted.rfind('\n') {
        None => Point::new(start.row, start.column + inserted.len()),
        Some(last) => Point::new(
            start.row + inserted.bytes().filter(|&byte| byte == b'\n').count(),
            inserted.len() - last - 1,
        ),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn incremental_edits_give_the_same_tree_as_a_fresh_parse() {
        let mut document = Document::new("def f(x):\n    return x\n", 1);
        let edits = [
            TextChange {
                range: Some(10..10),
                text: "    y = x + 1\n".into(),
            },
            TextChange {
                range: Some(4..5),
                text: "größe".into(),
            },
            TextChange {
                range: Some(0..0),
                text: "# 🐍\n".into(),
            },
        ];
        document.apply_changes(&edits, 2);
        let text = document.text().to_string();
        assert_eq!(text, "# 🐍\ndef größe(x):\n    y = x + 1\n    return x\n");
        let fresh = python_parser().parse(&text, None).unwrap();
        let incremental = document.snapshot().tree.unwrap();
        assert_eq!(
            incremental.root_node().to_sexp(),
            fresh.root_node().to_sexp()
        );
    }

    #[test]
    fn out_of_range_edits_are_clamped() {
        let mut document = Document::new("x = '🐍'\n", 1);
        document.apply_changes(
            &[TextChange {
                range: Some(6..500),
                text: "'".into(),
            }],
            2,
        );
        assert_eq!(document.text(), "x = ''");
    }
}

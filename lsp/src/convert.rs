//! The edge between byte offsets and protocol positions, in the negotiated
//! encoding. Nothing inside the server sees a `Position`.

use std::ops::Range;

use tower_lsp_server::ls_types::{Position, Range as LspRange};

use crate::document::DocumentSnapshot;
use crate::line_index::{LineColumn, LineIndex, PositionEncoding};

pub fn offset(
    text: &str,
    index: &LineIndex,
    position: Position,
    encoding: PositionEncoding,
) -> usize {
    index.offset(text, line_column(position), encoding)
}

/// A protocol position as the line index's.
pub fn line_column(position: Position) -> LineColumn {
    LineColumn {
        line: position.line,
        column: position.character,
    }
}

pub fn position(
    text: &str,
    index: &LineIndex,
    offset: usize,
    encoding: PositionEncoding,
) -> Position {
    let LineColumn { line, column } = index.position(text, offset, encoding);
    Position::new(line, column)
}

pub fn range(
    document: &DocumentSnapshot,
    bytes: Range<usize>,
    encoding: PositionEncoding,
) -> LspRange {
    LspRange::new(
        position(&document.text, &document.line_index, bytes.start, encoding),
        position(&document.text, &document.line_index, bytes.end, encoding),
    )
}

pub fn to_offset(
    document: &DocumentSnapshot,
    position: Position,
    encoding: PositionEncoding,
) -> usize {
    offset(&document.text, &document.line_index, position, encoding)
}

pub fn to_position(
    document: &DocumentSnapshot,
    offset: usize,
    encoding: PositionEncoding,
) -> Position {
    position(&document.text, &document.line_index, offset, encoding)
}

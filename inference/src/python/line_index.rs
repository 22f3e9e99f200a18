//! Line starts of one text and the conversions between the byte offsets used
//! everywhere inside the server and the `(line, column)` positions of the
//! protocol, in the negotiated encoding (UTF-8, UTF-16 or UTF-32 code units).
//!
//! Lines end at `\n`; a `\r` before it belongs to the line ending (so a
//! position past the last character of a CRLF line lands before the `\r`).
//! Conversions never panic: a position beyond the end of a line is clamped to
//! the line's end, a line beyond the end of the text to the text's end, and a
//! column inside a character (the second half of a UTF-16 surrogate pair, a
//! UTF-8 continuation byte) to the start of that character.

use std::ops::Range;

/// How columns are counted, negotiated with the client at `initialize`.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum PositionEncoding {
    /// Bytes: no conversion at all.
    Utf8,
    /// The protocol's default, and what most editors speak.
    #[default]
    Utf16,
    /// Unicode scalar values.
    Utf32,
}

impl PositionEncoding {
    /// The name in `general.positionEncodings`.
    pub fn as_str(self) -> &'static str {
        match self {
            PositionEncoding::Utf8 => "utf-8",
            PositionEncoding::Utf16 => "utf-16",
            PositionEncoding::Utf32 => "utf-32",
        }
    }

    /// Picks the encoding from the client's offer, in the client's order of
    /// preference restricted to what the server speaks; UTF-16 when the client
    /// offers nothing (the protocol's rule).
    pub fn negotiate<'a>(offered: impl IntoIterator<Item = &'a str>) -> PositionEncoding {
        for name in offered {
            match name {
                "utf-8" => return PositionEncoding::Utf8,
                "utf-16" => return PositionEncoding::Utf16,
                "utf-32" => return PositionEncoding::Utf32,
                _ => {}
            }
        }
        PositionEncoding::Utf16
    }

    fn units(self, character: char) -> usize {
        match self {
            PositionEncoding::Utf8 => character.len_utf8(),
            PositionEncoding::Utf16 => character.len_utf16(),
            PositionEncoding::Utf32 => 1,
        }
    }
}

/// A 0-based line and a column in some encoding's code units.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct LineColumn {
    pub line: u32,
    pub column: u32,
}

/// The byte offset of every line start of one text.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LineIndex {
    line_starts: Vec<usize>,
    len: usize,
}

impl LineIndex {
    pub fn new(text: &str) -> LineIndex {
        let mut line_starts = Vec::with_capacity(text.len() / 32 + 1);
        line_starts.push(0);
        line_starts.extend(
            text.bytes()
                .enumerate()
                .filter(|&(_, byte)| byte == b'\n')
                .map(|(index, _)| index + 1),
        );
        LineIndex {
            line_starts,
            len: text.len(),
        }
    }

    /// Number of lines; a text ending in `\n` has an empty last line.
    pub fn line_count(&self) -> usize {
        self.line_starts.len()
    }

    /// The 0-based line holding `offset` (clamped to the text).
    pub fn line_of(&self, offset: usize) -> usize {
        let offset = offset.min(self.len);
        self.line_starts.partition_point(|&start| start <= offset) - 1
    }

    /// The byte offset where `line` starts, `None` past the last line.
    pub fn line_start(&self, line: usize) -> Option<usize> {
        self.line_starts.get(line).copied()
    }

    /// The bytes of `line` without its line ending; empty past the last line.
    pub fn line_range(&self, text: &str, line: usize) -> Range<usize> {
        let Some(&start) = self.line_starts.get(line) else {
            return self.len..self.len;
        };
        let mut end = self
            .line_starts
            .get(line + 1)
            .map_or(self.len, |&next| next - 1);
        if end > start && text.as_bytes().get(end - 1) == Some(&b'\r') {
            end -= 1;
        }
        start..end
    }

    /// The text of `line` without its line ending.
    pub fn line_text<'a>(&self, text: &'a str, line: usize) -> &'a str {
        let range = self.line_range(text, line);
        text.get(range).unwrap_or("")
    }

    /// The position of `offset` in `encoding`; an offset inside a character
    /// counts from that character's start.
    pub fn position(&self, text: &str, offset: usize, encoding: PositionEncoding) -> LineColumn {
        let offset = floor_char_boundary(text, offset.min(self.len));
        let line = self.line_of(offset);
        let start = self.line_starts[line];
        let column = match encoding {
            PositionEncoding::Utf8 => offset - start,
            _ => text[start..offset]
                .chars()
                .map(|character| encoding.units(character))
                .sum(),
        };
        LineColumn {
            line: line as u32,
            column: column as u32,
        }
    }

    /// The byte offset of a position in `encoding`, clamped as the module
    /// documentation says.
    pub fn offset(&self, text: &str, position: LineColumn, encoding: PositionEncoding) -> usize {
        let line = position.line as usize;
        if line >= self.line_starts.len() {
            return self.len;
        }
        let range = self.line_range(text, line);
        let line_text = &text[range.clone()];
        let wanted = position.column as usize;
        let mut units = 0;
        for (index, character) in line_text.char_indices() {
            let width = encoding.units(character);
            if units + width > wanted {
                return range.start + index;
            }
            units += width;
        }
        range.end
    }
}

/// The largest character boundary not after `offset`.
pub fn floor_char_boundary(text: &str, offset: usize) -> usize {
    let mut offset = offset.min(text.len());
    while !text.is_char_boundary(offset) {
        offset -= 1;
    }
    offset
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn utf16_columns_of_emoji_and_non_ascii_identifiers() {
        let text = "def größe(x):\n    s = \"🐍🐍\"; ñ = 1\r\n";
        let index = LineIndex::new(text);
        let after_emoji = text.find("\"; ñ").unwrap();
        let utf16 = index.position(text, after_emoji, PositionEncoding::Utf16);
        // `    s = "` is 9 units, each snake is a surrogate pair.
        assert_eq!(
            utf16,
            LineColumn {
                line: 1,
                column: 13
            }
        );
        let utf32 = index.position(text, after_emoji, PositionEncoding::Utf32);
        assert_eq!(utf32.column, 11);
        let utf8 = index.position(text, after_emoji, PositionEncoding::Utf8);
        assert_eq!(
            utf8.column as usize,
            after_emoji - index.line_start(1).unwrap()
        );
        for encoding in [
            PositionEncoding::Utf8,
            PositionEncoding::Utf16,
            PositionEncoding::Utf32,
        ] {
            for (offset, character) in text.char_indices() {
                let position = index.position(text, offset, encoding);
                let back = index.offset(text, position, encoding);
                // The `\n` of a CRLF lies past the line's end, which is its `\r`.
                let expected = if character == '\n' && text[..offset].ends_with('\r') {
                    offset - 1
                } else {
                    offset
                };
                assert_eq!(back, expected, "{encoding:?} {offset}");
            }
        }
    }

    #[test]
    fn clamps_instead_of_panicking() {
        let text = "a🐍\nb";
        let index = LineIndex::new(text);
        // Inside the surrogate pair: the start of the emoji.
        let inside = index.offset(
            text,
            LineColumn { line: 0, column: 2 },
            PositionEncoding::Utf16,
        );
        assert_eq!(inside, 1);
        let past_line = index.offset(
            text,
            LineColumn {
                line: 0,
                column: 99,
            },
            PositionEncoding::Utf16,
        );
        assert_eq!(past_line, "a🐍".len());
        let past_text = index.offset(
            text,
            LineColumn { line: 9, column: 0 },
            PositionEncoding::Utf16,
        );
        assert_eq!(past_text, text.len());
        assert_eq!(
            index.position(text, 3, PositionEncoding::Utf16),
            LineColumn { line: 0, column: 1 }
        );
    }

    #[test]
    fn negotiation_prefers_the_clients_order_and_defaults_to_utf16() {
        assert_eq!(PositionEncoding::negotiate([]), PositionEncoding::Utf16);
        assert_eq!(
            PositionEncoding::negotiate(["utf-32", "utf-8"]),
            PositionEncoding::Utf32
        );
        assert_eq!(
            PositionEncoding::negotiate(["latin-1", "utf-8"]),
            PositionEncoding::Utf8
        );
    }
}

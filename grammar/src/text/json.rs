//! A small JSON reader for locals and values: objects of strings and
//! strings, nothing else, with offsets for errors.

use super::*;
use crate::state::Locals;

// ---------------------------------------------------------------------------
// A small JSON reader: objects of strings and strings, nothing else.

pub(super) struct JsonReader<'a> {
    text: &'a str,
    position: usize,
    /// The offset of `text` in the whole parsed input.
    base: usize,
}

impl<'a> JsonReader<'a> {
    fn new(text: &'a str, base: usize) -> JsonReader<'a> {
        JsonReader {
            text,
            position: 0,
            base,
        }
    }

    fn error(&self, message: impl Into<String>) -> ParseError {
        ParseError::new(self.base + self.position, message)
    }

    fn peek(&self) -> Option<char> {
        self.text[self.position..].chars().next()
    }

    fn bump(&mut self) -> Option<char> {
        let c = self.peek()?;
        self.position += c.len_utf8();
        Some(c)
    }

    fn skip_whitespace(&mut self) {
        while matches!(self.peek(), Some(' ' | '\t' | '\n' | '\r')) {
            self.position += 1;
        }
    }

    fn describe_next(&self) -> String {
        match self.peek() {
            None => "the end of the text (cut off?)".to_string(),
            Some(c) => format!("`{}`", c.escape_debug()),
        }
    }

    fn expect_end(&mut self, what: &str) -> Result<(), ParseError> {
        self.skip_whitespace();
        match self.peek() {
            None => Ok(()),
            Some(_) => Err(self.error(format!("unexpected {} after {what}", self.describe_next()))),
        }
    }

    /// Reads a JSON string starting at the current position (its `"`).
    fn string(&mut self) -> Result<String, ParseError> {
        if self.peek() != Some('"') {
            return Err(self.error(format!(
                "expected a JSON string, found {}",
                self.describe_next()
            )));
        }
        self.position += 1;
        let mut value = String::new();
        loop {
            let at = self.position;
            let Some(c) = self.bump() else {
                return Err(self.error("a JSON string is cut off"));
            };
            match c {
                '"' => return Ok(value),
                '\\' => value.push(self.escape(at)?),
                c if (c as u32) < 0x20 => {
                    self.position = at;
                    return Err(self.error(format!(
                        "a raw control character `{}` in a JSON string",
                        c.escape_debug()
                    )));
                }
                c => value.push(c),
            }
        }
    }

    /// Reads the rest of an escape whose `\` was at `at`.
    fn escape(&mut self, at: usize) -> Result<char, ParseError> {
        let Some(c) = self.bump() else {
            return Err(self.error("a JSON string is cut off"));
        };
        Ok(match c {
            '"' => '"',
            '\\' => '\\',
            '/' => '/',
            'b' => '\u{8}',
            'f' => '\u{c}',
            'n' => '\n',
            'r' => '\r',
            't' => '\t',
            'u' => {
                let high = self.hex4(at)?;
                if !(0xD800..0xE000).contains(&high) {
                    // Not a surrogate, so a valid scalar value.
                    return char::from_u32(high).ok_or_else(|| self.error("bad unicode escape"));
                }
                let low_at = self.position;
                if high >= 0xDC00 || !self.text[self.position..].starts_with("\\u") {
                    self.position = at;
                    return Err(self.error("an unpaired surrogate in a `\\u` escape"));
                }
                self.position += 2;
                let low = self.hex4(low_at)?;
                if !(0xDC00..0xE000).contains(&low) {
                    self.position = at;
                    return Err(self.error("an unpaired surrogate in a `\\u` escape"));
                }
                let scalar = 0x10000 + ((high - 0xD800) << 10) + (low - 0xDC00);
                char::from_u32(scalar).ok_or_else(|| self.error("bad unicode escape"))?
            }
            other => {
                self.position = at;
                return Err(self.error(format!(
                    "a bad escape `\\{}` in a JSON string",
                    other.escape_debug()
                )));
            }
        })
    }

    /// Reads four hex digits of a `\u` escape whose `\` was at `at`.
    fn hex4(&mut self, at: usize) -> Result<u32, ParseError> {
        let mut value = 0;
        for _ in 0..4 {
            match self.peek() {
                None => return Err(self.error("a JSON string is cut off")),
                Some(c) => match c.to_digit(16) {
                    Some(digit) => {
                        value = value * 16 + digit;
                        self.position += 1;
                    }
                    None => {
                        self.position = at;
                        return Err(self.error("a `\\u` escape needs four hex digits"));
                    }
                },
            }
        }
        Ok(value)
    }

    /// Reads a JSON object whose values are all strings. Returns its entries
    /// (without the delta marker) and whether the marker was there.
    fn locals_object(&mut self) -> Result<(Locals, bool), ParseError> {
        self.skip_whitespace();
        if self.peek() != Some('{') {
            return Err(self.error(format!(
                "expected a JSON object of locals, found {}",
                self.describe_next()
            )));
        }
        self.position += 1;
        let mut locals = Locals::new();
        let mut delta = false;
        self.skip_whitespace();
        if self.peek() == Some('}') {
            self.position += 1;
            return Ok((locals, delta));
        }
        loop {
            self.skip_whitespace();
            let key_at = self.position;
            let key = self.string()?;
            self.skip_whitespace();
            if self.peek() != Some(':') {
                return Err(self.error(format!(
                    "expected `:` after a name in the locals, found {}",
                    self.describe_next()
                )));
            }
            self.position += 1;
            self.skip_whitespace();
            if self.peek() != Some('"') {
                return Err(self.error(format!(
                    "expected a JSON string (a repr) as the value of `{}`, found {}",
                    key.escape_debug(),
                    self.describe_next()
                )));
            }
            let value_at = self.position;
            let value = self.string()?;
            if key == DELTA_MARKER {
                if delta {
                    return Err(ParseError::new(
                        self.base + key_at,
                        "a second `\"..\"` entry",
                    ));
                }
                if value != DELTA_MARKER {
                    return Err(ParseError::new(
                        self.base + value_at,
                        "the delta marker must be written `\"..\": \"..\"`",
                    ));
                }
                delta = true;
            } else if let Some((_, first)) = locals.iter().find(|(name, _)| *name == key) {
                // The same name written again with the same value says
                // nothing new (a model repeats itself so); with another
                // value it is a contradiction, and nothing is guessed.
                if *first != value {
                    return Err(ParseError::new(
                        self.base + key_at,
                        format!(
                            "the name `{}` appears twice in the locals, with two values",
                            key.escape_debug()
                        ),
                    ));
                }
            } else {
                locals.push((key, value));
            }
            self.skip_whitespace();
            match self.peek() {
                Some(',') => self.position += 1,
                Some('}') => {
                    self.position += 1;
                    return Ok((locals, delta));
                }
                None => return Err(self.error("the locals object is cut off")),
                Some(_) => {
                    return Err(self.error(format!(
                        "expected `,` or `}}` in the locals, found {}",
                        self.describe_next()
                    )))
                }
            }
        }
    }
}

/// Parses a whole text as one locals object (surrounding whitespace allowed).
pub(super) fn parse_locals_object(text: &str, offset: usize) -> Result<(Locals, bool), ParseError> {
    let mut reader = JsonReader::new(text, offset);
    let result = reader.locals_object()?;
    reader.expect_end("the locals object")?;
    Ok(result)
}

/// Parses a whole text as one JSON string (surrounding whitespace allowed).
pub(super) fn parse_whole_json_string(text: &str, offset: usize) -> Result<String, ParseError> {
    let mut reader = JsonReader::new(text, offset);
    reader.skip_whitespace();
    let value = reader.string()?;
    reader.expect_end("the value")?;
    Ok(value)
}

//! A source read once: its text, its lines and its functions' spans. Every
//! question about one version of a file reads this one value (shared by
//! `Arc`): the prompt, the grammar of the answer, the placing of each
//! candidate on a line. The lines are split here and nowhere else on that
//! path, and the spans come from a Python reader outside this crate (the
//! grammar stays pure data).

use std::cell::Cell;
use std::ops::Deref;
use std::sync::Arc;

use crate::locate::FunctionSpan;
use crate::state::source_lines;

thread_local! {
    static SPLITS: Cell<u64> = const { Cell::new(0) };
}

/// A source text with its line index and its functions.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Source {
    text: Arc<str>,
    /// Each line's byte range, without its line ending (also a lone `\r`).
    lines: Vec<(usize, usize)>,
    /// The functions in file order, nested ones included.
    spans: Vec<FunctionSpan>,
}

impl Source {
    /// `text` split into lines, with `spans` as a Python reader found them.
    pub fn new(text: impl Into<Arc<str>>, spans: Vec<FunctionSpan>) -> Source {
        let text = text.into();
        SPLITS.with(|splits| splits.set(splits.get() + 1));
        let base = text.as_ptr() as usize;
        let lines = source_lines(&text)
            .map(|line| {
                let start = line.as_ptr() as usize - base;
                (start, start + line.len())
            })
            .collect();
        Source { text, lines, spans }
    }

    /// How many sources this thread has split into lines: a test's count of
    /// the splits one question makes.
    pub fn splits_on_this_thread() -> u64 {
        SPLITS.with(Cell::get)
    }

    pub fn text(&self) -> &str {
        &self.text
    }

    /// The text, shared.
    pub fn shared_text(&self) -> &Arc<str> {
        &self.text
    }

    pub fn spans(&self) -> &[FunctionSpan] {
        &self.spans
    }

    pub fn line_count(&self) -> usize {
        self.lines.len()
    }

    /// The 1-based line `line`, without its line ending.
    pub fn get_line(&self, line: u32) -> Option<&str> {
        let index = (line as usize).checked_sub(1)?;
        let &(start, end) = self.lines.get(index)?;
        Some(&self.text[start..end])
    }

    /// The 1-based line `line`; empty when out of range.
    pub fn line(&self, line: u32) -> &str {
        self.get_line(line).unwrap_or("")
    }

    /// Every line in order, without line endings.
    pub fn lines(&self) -> impl DoubleEndedIterator<Item = &str> + ExactSizeIterator + Clone {
        self.lines
            .iter()
            .map(|&(start, end)| &self.text[start..end])
    }

    /// The text a call state shows for a call event at `line`: the `def`
    /// line of the function, past its decorators (Python reports a
    /// decorated function's call at its first decorator).
    pub fn call_line(&self, line: u32) -> &str {
        crate::state::call_line_of(|number| self.line(number), line)
    }
}

impl Deref for Source {
    type Target = str;

    fn deref(&self) -> &str {
        &self.text
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lines_are_those_of_source_lines_and_counted_once() {
        let text = "def f(x):\r\n\n    return x\r\n@d\n\ndef g():\n  pass";
        let before = Source::splits_on_this_thread();
        let source = Source::new(text, Vec::new());
        assert_eq!(Source::splits_on_this_thread(), before + 1);
        let expected: Vec<&str> = source_lines(text).collect();
        assert_eq!(source.lines().collect::<Vec<_>>(), expected);
        assert_eq!(source.line_count(), expected.len());
        assert_eq!(source.line(1), "def f(x):");
        assert_eq!(source.line(3), "    return x");
        assert_eq!(source.line(0), "");
        assert_eq!(source.line(99), "");
        assert_eq!(source.call_line(4), "def g():");
        assert_eq!(source.call_line(1), crate::state::call_source_line(text, 1));
        assert_eq!(&*source, text);
        // Reading lines never splits again.
        let _ = (source.line(2), source.lines().count(), source.call_line(4));
        assert_eq!(Source::splits_on_this_thread(), before + 1);
    }
}

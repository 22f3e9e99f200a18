//! Python literal values as the suggestion search sees them: a parser of
//! literal text (what `repr()` prints and `ast.literal_eval` reads), the
//! text that writes a value back, a distance between an output a run gave
//! and the one wanted, and the type-directed edits that move a candidate
//! toward it.

use std::fmt::Write as _;

/// One Python literal.
#[derive(Clone, Debug, PartialEq)]
pub enum Value {
    None,
    Bool(bool),
    Int(i128),
    Float(f64),
    Str(String),
    Bytes(Vec<u8>),
    List(Vec<Value>),
    Tuple(Vec<Value>),
    Set(Vec<Value>),
    Dict(Vec<(Value, Value)>),
}

/// Why a text is not a Python literal.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("{message} at character {at}")]
pub struct LiteralError {
    pub message: String,
    /// 0-based character offset.
    pub at: usize,
}

/// Parses one Python literal (with `set()` for the empty set). Never panics.
pub fn parse_literal(text: &str) -> Result<Value, LiteralError> {
    let mut parser = Parser {
        chars: text.chars().collect(),
        at: 0,
        depth: 0,
    };
    let value = parser.value()?;
    parser.blank();
    if parser.at < parser.chars.len() {
        return Err(parser.error("unexpected text after the value"));
    }
    Ok(value)
}

/// Parses an argument list (`1, 'a', [2]`) into its values; keyword
/// arguments and starred ones are not literals here.
pub fn parse_arguments(text: &str) -> Result<Vec<Value>, LiteralError> {
    if text.trim().is_empty() {
        return Ok(Vec::new());
    }
    match parse_literal(&format!("({text},)"))? {
        Value::Tuple(values) => Ok(values),
        _ => Err(LiteralError {
            message: "not an argument list".into(),
            at: 0,
        }),
    }
}

/// Deepest nesting the parser follows (bounded work, no stack overflow).
const MAX_DEPTH: usize = 64;

struct Parser {
    chars: Vec<char>,
    at: usize,
    depth: usize,
}

impl Parser {
    fn error(&self, message: &str) -> LiteralError {
        LiteralError {
            message: message.to_string(),
            at: self.at,
        }
    }

    fn peek(&self) -> Option<char> {
        self.chars.get(self.at).copied()
    }

    fn blank(&mut self) {
        while self.peek().is_some_and(char::is_whitespace) {
            self.at += 1;
        }
    }

    fn eat(&mut self, c: char) -> bool {
        self.blank();
        if self.peek() == Some(c) {
            self.at += 1;
            true
        } else {
            false
        }
    }

    fn word(&mut self) -> String {
        let start = self.at;
        while self
            .peek()
            .is_some_and(|c| c.is_alphanumeric() || c == '_' || c == '.')
        {
            self.at += 1;
        }
        self.chars[start..self.at].iter().collect()
    }

    fn value(&mut self) -> Result<Value, LiteralError> {
        self.blank();
        self.depth += 1;
        if self.depth > MAX_DEPTH {
            return Err(self.error("nested too deeply"));
        }
        let value = self.value_inner();
        self.depth -= 1;
        value
    }

    fn value_inner(&mut self) -> Result<Value, LiteralError> {
        let Some(c) = self.peek() else {
            return Err(self.error("expected a value"));
        };
        match c {
            '[' => {
                self.at += 1;
                Ok(Value::List(self.items(']')?.0))
            }
            '(' => {
                self.at += 1;
                let (items, trailing_comma) = self.items(')')?;
                if items.len() == 1 && !trailing_comma {
                    Ok(items.into_iter().next().unwrap_or(Value::None))
                } else {
                    Ok(Value::Tuple(items))
                }
            }
            '{' => {
                self.at += 1;
                self.braces()
            }
            '\'' | '"' => self.strings(false),
            '-' | '+' => {
                self.at += 1;
                self.blank();
                let negative = c == '-';
                match self.value()? {
                    Value::Int(n) if negative => Ok(Value::Int(n.saturating_neg())),
                    Value::Float(x) if negative => Ok(Value::Float(-x)),
                    value @ (Value::Int(_) | Value::Float(_)) => Ok(value),
                    _ => Err(self.error("a sign must be followed by a number")),
                }
            }
            c if c.is_ascii_digit() || c == '.' => self.number(),
            c if c.is_alphabetic() || c == '_' => {
                let start = self.at;
                let word = self.word();
                let lower = word.to_ascii_lowercase();
                if matches!(self.peek(), Some('\'' | '"'))
                    && lower.len() <= 2
                    && lower.chars().all(|c| matches!(c, 'r' | 'b' | 'u'))
                {
                    if lower.contains('r') {
                        self.at = start;
                        return Err(self.error("raw strings are not read here"));
                    }
                    return self.strings(lower.contains('b'));
                }
                match word.as_str() {
                    "None" => Ok(Value::None),
                    "True" => Ok(Value::Bool(true)),
                    "False" => Ok(Value::Bool(false)),
                    "set" if self.eat('(') => {
                        if self.eat(')') {
                            Ok(Value::Set(Vec::new()))
                        } else {
                            Err(self.error("only `set()` is read as a call"))
                        }
                    }
                    _ => {
                        self.at = start;
                        Err(self.error(&format!(
                            "`{word}` is a name, not a literal (strings need quotes)"
                        )))
                    }
                }
            }
            _ => Err(self.error(&format!("`{c}` cannot start a value"))),
        }
    }

    /// Items up to `close`; whether the last was followed by a comma.
    fn items(&mut self, close: char) -> Result<(Vec<Value>, bool), LiteralError> {
        let mut items = Vec::new();
        let mut trailing_comma = false;
        loop {
            if self.eat(close) {
                return Ok((items, trailing_comma));
            }
            items.push(self.value()?);
            trailing_comma = false;
            if self.eat(',') {
                trailing_comma = true;
                continue;
            }
            if self.eat(close) {
                return Ok((items, trailing_comma));
            }
            return Err(self.error(&format!("expected `,` or `{close}`")));
        }
    }

    fn braces(&mut self) -> Result<Value, LiteralError> {
        if self.eat('}') {
            return Ok(Value::Dict(Vec::new()));
        }
        let first = self.value()?;
        if self.eat(':') {
            let mut pairs = vec![(first, self.value()?)];
            loop {
                if self.eat('}') {
                    return Ok(Value::Dict(pairs));
                }
                if !self.eat(',') {
                    return Err(self.error("expected `,` or `}`"));
                }
                if self.eat('}') {
                    return Ok(Value::Dict(pairs));
                }
                let key = self.value()?;
                if !self.eat(':') {
                    return Err(self.error("expected `:`"));
                }
                pairs.push((key, self.value()?));
            }
        }
        let mut items = vec![first];
        loop {
            if self.eat('}') {
                return Ok(Value::Set(items));
            }
            if !self.eat(',') {
                return Err(self.error("expected `,` or `}`"));
            }
            if self.eat('}') {
                return Ok(Value::Set(items));
            }
            items.push(self.value()?);
        }
    }

    fn number(&mut self) -> Result<Value, LiteralError> {
        let start = self.at;
        while self.peek().is_some_and(|c| {
            c.is_ascii_alphanumeric()
                || c == '.'
                || c == '_'
                || ((c == '-' || c == '+')
                    && matches!(self.chars.get(self.at - 1), Some('e' | 'E'))
                    && !self.chars[start..self.at]
                        .iter()
                        .any(|c| matches!(c, 'x' | 'X')))
        }) {
            self.at += 1;
        }
        let text: String = self.chars[start..self.at]
            .iter()
            .filter(|&&c| c != '_')
            .collect();
        let lower = text.to_ascii_lowercase();
        let parsed = if let Some(hex) = lower.strip_prefix("0x") {
            i128::from_str_radix(hex, 16).ok().map(Value::Int)
        } else if let Some(octal) = lower.strip_prefix("0o") {
            i128::from_str_radix(octal, 8).ok().map(Value::Int)
        } else if let Some(binary) = lower.strip_prefix("0b") {
            i128::from_str_radix(binary, 2).ok().map(Value::Int)
        } else if lower.contains(['.', 'e']) {
            lower.parse::<f64>().ok().map(Value::Float)
        } else {
            lower.parse::<i128>().ok().map(Value::Int)
        };
        parsed.ok_or_else(|| LiteralError {
            message: format!("`{text}` is not a number this reads"),
            at: start,
        })
    }

    /// One string literal, and any that follow it (Python joins them).
    fn strings(&mut self, bytes: bool) -> Result<Value, LiteralError> {
        let mut text = String::new();
        loop {
            text.push_str(&self.string()?);
            self.blank();
            if !matches!(self.peek(), Some('\'' | '"')) {
                break;
            }
        }
        if bytes {
            Ok(Value::Bytes(text.chars().map(|c| c as u32 as u8).collect()))
        } else {
            Ok(Value::Str(text))
        }
    }

    fn string(&mut self) -> Result<String, LiteralError> {
        let quote = self.peek().unwrap_or('\'');
        let triple = self.chars.get(self.at..self.at + 3) == Some(&[quote, quote, quote][..]);
        self.at += if triple { 3 } else { 1 };
        let mut out = String::new();
        loop {
            let Some(c) = self.peek() else {
                return Err(self.error("the string does not end"));
            };
            self.at += 1;
            if c == quote {
                if !triple {
                    return Ok(out);
                }
                if self.chars.get(self.at..self.at + 2) == Some(&[quote, quote][..]) {
                    self.at += 2;
                    return Ok(out);
                }
                out.push(c);
                continue;
            }
            if c == '\n' && !triple {
                return Err(self.error("the string does not end on its line"));
            }
            if c != '\\' {
                out.push(c);
                continue;
            }
            let Some(escaped) = self.peek() else {
                return Err(self.error("the string does not end"));
            };
            self.at += 1;
            let hex = |parser: &mut Parser, digits: usize| -> Result<char, LiteralError> {
                let text: String = parser
                    .chars
                    .get(parser.at..parser.at + digits)
                    .map(|s| s.iter().collect())
                    .unwrap_or_default();
                parser.at += digits;
                u32::from_str_radix(&text, 16)
                    .ok()
                    .and_then(char::from_u32)
                    .ok_or_else(|| parser.error("bad escape"))
            };
            match escaped {
                'n' => out.push('\n'),
                't' => out.push('\t'),
                'r' => out.push('\r'),
                '0'..='7' => {
                    let mut code = escaped.to_digit(8).unwrap_or(0);
                    for _ in 0..2 {
                        match self.peek().and_then(|c| c.to_digit(8)) {
                            Some(digit) => {
                                code = code * 8 + digit;
                                self.at += 1;
                            }
                            None => break,
                        }
                    }
                    out.push(char::from_u32(code).unwrap_or('\0'));
                }
                'a' => out.push('\x07'),
                'b' => out.push('\x08'),
                'f' => out.push('\x0c'),
                'v' => out.push('\x0b'),
                'x' => out.push(hex(self, 2)?),
                'u' => out.push(hex(self, 4)?),
                'U' => out.push(hex(self, 8)?),
                '\n' => {}
                '\\' | '\'' | '"' => out.push(escaped),
                other => {
                    out.push('\\');
                    out.push(other);
                }
            }
        }
    }
}

impl Value {
    /// Python source text for the value (`repr()` for the common cases).
    pub fn to_python(&self) -> String {
        let mut out = String::new();
        self.write(&mut out);
        out
    }

    fn write(&self, out: &mut String) {
        let join = |out: &mut String, items: &[Value]| {
            for (index, item) in items.iter().enumerate() {
                if index > 0 {
                    out.push_str(", ");
                }
                item.write(out);
            }
        };
        match self {
            Value::None => out.push_str("None"),
            Value::Bool(true) => out.push_str("True"),
            Value::Bool(false) => out.push_str("False"),
            Value::Int(n) => {
                let _ = write!(out, "{n}");
            }
            Value::Float(x) if x.is_finite() => {
                let _ = write!(out, "{x:?}");
            }
            Value::Float(x) => out.push_str(if x.is_nan() {
                "float('nan')"
            } else if *x > 0.0 {
                "float('inf')"
            } else {
                "float('-inf')"
            }),
            Value::Str(text) => out.push_str(&python_str(text)),
            Value::Bytes(bytes) => {
                out.push_str("b'");
                for &byte in bytes {
                    match byte {
                        b'\\' => out.push_str("\\\\"),
                        b'\'' => out.push_str("\\'"),
                        b'\n' => out.push_str("\\n"),
                        b'\t' => out.push_str("\\t"),
                        b'\r' => out.push_str("\\r"),
                        0x20..=0x7e => out.push(byte as char),
                        _ => {
                            let _ = write!(out, "\\x{byte:02x}");
                        }
                    }
                }
                out.push('\'');
            }
            Value::List(items) => {
                out.push('[');
                join(out, items);
                out.push(']');
            }
            Value::Tuple(items) => {
                out.push('(');
                join(out, items);
                if items.len() == 1 {
                    out.push(',');
                }
                out.push(')');
            }
            Value::Set(items) if items.is_empty() => out.push_str("set()"),
            Value::Set(items) => {
                out.push('{');
                join(out, items);
                out.push('}');
            }
            Value::Dict(pairs) => {
                out.push('{');
                for (index, (key, value)) in pairs.iter().enumerate() {
                    if index > 0 {
                        out.push_str(", ");
                    }
                    key.write(out);
                    out.push_str(": ");
                    value.write(out);
                }
                out.push('}');
            }
        }
    }

    /// The type's name as Python says it.
    pub fn kind(&self) -> Kind {
        match self {
            Value::None => Kind::None,
            Value::Bool(_) => Kind::Bool,
            Value::Int(_) => Kind::Int,
            Value::Float(_) => Kind::Float,
            Value::Str(_) => Kind::Str,
            Value::Bytes(_) => Kind::Bytes,
            Value::List(_) => Kind::List,
            Value::Tuple(_) => Kind::Tuple,
            Value::Set(_) => Kind::Set,
            Value::Dict(_) => Kind::Dict,
        }
    }

    /// The items of a sequence, set or string (as one-character strings).
    pub fn elements(&self) -> Vec<Value> {
        match self {
            Value::List(items) | Value::Tuple(items) | Value::Set(items) => items.clone(),
            Value::Str(text) => text.chars().map(|c| Value::Str(c.to_string())).collect(),
            Value::Dict(pairs) => pairs.iter().map(|(key, _)| key.clone()).collect(),
            _ => Vec::new(),
        }
    }

    /// An empty container (a scalar is not one).
    pub fn is_empty(&self) -> bool {
        self.len() == Some(0)
    }

    /// `len()` of the value, when it has one.
    pub fn len(&self) -> Option<usize> {
        match self {
            Value::List(items) | Value::Tuple(items) | Value::Set(items) => Some(items.len()),
            Value::Str(text) => Some(text.chars().count()),
            Value::Bytes(bytes) => Some(bytes.len()),
            Value::Dict(pairs) => Some(pairs.len()),
            _ => None,
        }
    }
}

/// The kinds of value the search tells apart.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Kind {
    None,
    Bool,
    Int,
    Float,
    Str,
    Bytes,
    List,
    Tuple,
    Set,
    Dict,
}

/// Python's `repr()` of a string: single quotes unless the text has one
/// and no double quote.
pub fn python_str(text: &str) -> String {
    let quote = if text.contains('\'') && !text.contains('"') {
        '"'
    } else {
        '\''
    };
    let mut out = String::new();
    out.push(quote);
    for c in text.chars() {
        match c {
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            c if c == quote => {
                out.push('\\');
                out.push(c);
            }
            c if (c as u32) < 0x20 || c as u32 == 0x7f => {
                let _ = write!(out, "\\x{:02x}", c as u32);
            }
            c => out.push(c),
        }
    }
    out.push(quote);
    out
}

/// Edit distance with a cost for substituting one item by another.
fn levenshtein<T>(a: &[T], b: &[T], substitute: impl Fn(&T, &T) -> f64) -> f64 {
    let mut previous: Vec<f64> = (0..=b.len()).map(|j| j as f64).collect();
    for (i, x) in a.iter().enumerate() {
        let mut current = vec![(i + 1) as f64];
        for (j, y) in b.iter().enumerate() {
            let value = (previous[j + 1] + 1.0)
                .min(current[j] + 1.0)
                .min(previous[j] + substitute(x, y));
            current.push(value);
        }
        previous = current;
    }
    previous[b.len()]
}

/// Longest texts and sequences compared item by item; longer ones are
/// compared by length alone (the distance stays cheap).
const MAX_COMPARED: usize = 400;

/// How far an output is from the one wanted: 0 when equal, growing with the
/// edits between them (characters of strings, items of lists, the gap
/// between numbers), plus a penalty when the types differ.
pub fn distance(actual: &Value, wanted: &Value) -> f64 {
    match (actual, wanted) {
        (Value::Bool(a), Value::Bool(b)) => f64::from(u8::from(a != b)),
        (Value::Int(_) | Value::Float(_), Value::Int(_) | Value::Float(_)) => {
            let gap = (number(actual) - number(wanted)).abs();
            if gap.is_nan() {
                10.0
            } else {
                // Bounded, but still smaller for every step nearer: a
                // search far from a large number (a factorial, a sum of
                // squares) keeps its direction.
                10.0 * gap / (gap + 10.0)
            }
        }
        (Value::Str(a), Value::Str(b)) => {
            let (a, b): (Vec<char>, Vec<char>) = (a.chars().collect(), b.chars().collect());
            if a.len() > MAX_COMPARED || b.len() > MAX_COMPARED {
                a.len().abs_diff(b.len()) as f64 + 1.0
            } else {
                levenshtein(&a, &b, |x, y| f64::from(u8::from(x != y)))
            }
        }
        (Value::List(a), Value::List(b))
        | (Value::Tuple(a), Value::Tuple(b))
        | (Value::Set(a), Value::Set(b)) => {
            if a.len() > MAX_COMPARED || b.len() > MAX_COMPARED {
                2.0 * (a.len().abs_diff(b.len()) as f64 + 1.0)
            } else {
                2.0 * levenshtein(a, b, item_distance)
            }
        }
        (Value::Dict(a), Value::Dict(b)) => {
            let missing = b.iter().filter(|pair| !a.contains(pair)).count();
            let extra = a.iter().filter(|pair| !b.contains(pair)).count();
            (missing + extra) as f64
        }
        _ => text_distance(&actual.to_python(), &wanted.to_python()) + 5.0,
    }
}

/// Longest item (as Python text) whose distance inside a sequence is
/// measured; longer items of one type cost half a substitution.
const MAX_ITEM_COMPARED: usize = 40;

/// The cost of substituting item `x` by `y` in a sequence: nothing when
/// equal, a whole edit for another type, and between for the same type,
/// growing with their own distance (a count off by one is nearer than one
/// off by ten).
fn item_distance(x: &Value, y: &Value) -> f64 {
    if x == y {
        0.0
    } else if x.kind() != y.kind() {
        1.0
    } else if matches!(
        x,
        Value::Int(_) | Value::Float(_) | Value::Str(_) | Value::Bool(_)
    ) && x.to_python().len() <= MAX_ITEM_COMPARED
        && y.to_python().len() <= MAX_ITEM_COMPARED
    {
        let d = distance(x, y);
        0.2 + 0.6 * d / (d + 1.0)
    } else {
        0.5
    }
}

/// The edit distance of two texts (reprs that did not parse, or values of
/// different types).
pub fn text_distance(a: &str, b: &str) -> f64 {
    let (a, b): (Vec<char>, Vec<char>) = (a.chars().collect(), b.chars().collect());
    if a.len() > MAX_COMPARED || b.len() > MAX_COMPARED {
        return a.len().abs_diff(b.len()) as f64 + MAX_COMPARED as f64;
    }
    levenshtein(&a, &b, |x, y| f64::from(u8::from(x != y)))
}

fn number(value: &Value) -> f64 {
    match value {
        Value::Int(n) => *n as f64,
        Value::Float(x) => *x,
        _ => f64::NAN,
    }
}

/// What the edits of one value draw new parts from: the wanted output, the
/// function's literals.
pub struct Ingredients {
    /// Characters to insert or change to, most promising first.
    pub characters: Vec<char>,
    /// Items to insert or change to, most promising first.
    pub items: Vec<Value>,
    pub strings: Vec<String>,
    pub numbers: Vec<i128>,
    pub wanted: Value,
}

/// Most characters and items one edit chooses from.
const MAX_CHOICES: usize = 6;

impl Ingredients {
    pub fn new(wanted: &Value, literals: &[Value]) -> Ingredients {
        let mut characters: Vec<char> = Vec::new();
        let mut push_char = |c: char| {
            if !characters.contains(&c) {
                characters.push(c);
            }
        };
        match wanted {
            Value::Str(text) => text.chars().for_each(&mut push_char),
            other => other.to_python().chars().for_each(&mut push_char),
        }
        for literal in literals {
            if let Value::Str(text) = literal {
                text.chars().for_each(&mut push_char);
            }
        }
        "a1 ".chars().for_each(&mut push_char);
        characters.truncate(MAX_CHOICES);
        let mut items: Vec<Value> = Vec::new();
        let mut push_item = |value: Value| {
            if !items.contains(&value) {
                items.push(value);
            }
        };
        match wanted {
            Value::List(values) | Value::Tuple(values) | Value::Set(values) => {
                values.iter().cloned().for_each(&mut push_item)
            }
            Value::Str(_) => wanted
                .elements()
                .into_iter()
                .take(5)
                .for_each(&mut push_item),
            _ => {}
        }
        for literal in literals {
            if matches!(literal, Value::Int(_) | Value::Str(_)) {
                push_item(literal.clone());
            }
        }
        for filler in [Value::Int(0), Value::Int(1), Value::Str("a".into())] {
            push_item(filler);
        }
        let strings = literals
            .iter()
            .filter_map(|literal| match literal {
                Value::Str(text) => Some(text.clone()),
                _ => None,
            })
            .collect();
        let numbers = literals
            .iter()
            .filter_map(|literal| match literal {
                Value::Int(n) => Some(*n),
                _ => None,
            })
            .collect();
        Ingredients {
            characters,
            items,
            strings,
            numbers,
            wanted: wanted.clone(),
        }
    }
}

/// Edits of `value` (one argument of a candidate), the ones that move its
/// length the way the run's `actual` output needs first: when the output
/// came out shorter than wanted, insertions; longer, deletions; else
/// changes in place.
pub fn edits(value: &Value, actual: Option<&Value>, ingredients: &Ingredients) -> Vec<Value> {
    let mut edits = raw_edits(value, ingredients, &mut Vec::new());
    let wanted_len = ingredients.wanted.len();
    // The output's length is a guide only when it has the wanted type.
    let need = match (actual, wanted_len) {
        (Some(actual), Some(wanted)) if actual.kind() == ingredients.wanted.kind() => {
            actual.len().map(|actual| wanted as i64 - actual as i64)
        }
        _ => None,
    };
    let base_len = value.len().map(|n| n as i64);
    if let (Some(need), Some(base)) = (need, base_len) {
        // A stable sort: within each class the order above is kept.
        edits.sort_by_key(|edit| {
            let got = edit.len().map_or(0, |n| n as i64) - base;
            let agrees = (need > 0 && got > 0) || (need < 0 && got < 0) || (need == 0 && got == 0);
            u8::from(!agrees)
        });
    } else if let (Value::Int(base), Some(Value::Int(_)), Value::Int(_)) =
        (value, actual, &ingredients.wanted)
    {
        // Small steps first when a number gives a number.
        edits.sort_by_key(|edit| match edit {
            Value::Int(n) => u8::from(n.abs_diff(*base) > 2),
            _ => 1,
        });
    }
    let mut unique: Vec<Value> = Vec::new();
    for edit in edits {
        if &edit != value && !unique.contains(&edit) {
            unique.push(edit);
        }
    }
    unique
}

fn raw_edits(value: &Value, ingredients: &Ingredients, out: &mut Vec<Value>) -> Vec<Value> {
    match value {
        Value::Str(text) => {
            let chars: Vec<char> = text.chars().collect();
            let text_of = |chars: &[char]| Value::Str(chars.iter().collect());
            for i in 0..chars.len() {
                let mut edited = chars.clone();
                edited.remove(i);
                out.push(text_of(&edited));
            }
            for i in 0..=chars.len() {
                for &c in &ingredients.characters {
                    let mut edited = chars.clone();
                    edited.insert(i, c);
                    out.push(text_of(&edited));
                }
            }
            for i in 0..chars.len() {
                for &c in &ingredients.characters {
                    if c != chars[i] {
                        let mut edited = chars.clone();
                        edited[i] = c;
                        out.push(text_of(&edited));
                    }
                }
                let swapped = swap_case(chars[i]);
                if swapped != chars[i] {
                    let mut edited = chars.clone();
                    edited[i] = swapped;
                    out.push(text_of(&edited));
                }
            }
            for i in 0..chars.len().saturating_sub(1) {
                let mut edited = chars.clone();
                edited.swap(i, i + 1);
                out.push(text_of(&edited));
            }
            out.push(Value::Str(text.repeat(2)));
            out.push(Value::Str(chars.iter().rev().collect()));
            out.push(Value::Str(text.to_uppercase()));
            out.push(Value::Str(text.to_lowercase()));
            out.push(Value::Str(chars.iter().map(|&c| swap_case(c)).collect()));
            for literal in &ingredients.strings {
                out.push(Value::Str(format!("{text}{literal}")));
                out.push(Value::Str(format!("{literal}{text}")));
            }
        }
        Value::Bool(b) => out.push(Value::Bool(!b)),
        Value::Int(n) => {
            let n = *n;
            for edited in [
                n.saturating_add(1),
                n.saturating_sub(1),
                n.saturating_neg(),
                n.saturating_mul(2),
                n / 2,
                0,
                1,
                n.saturating_add(2),
                n.saturating_sub(2),
                n.saturating_mul(10),
            ] {
                out.push(Value::Int(edited));
            }
            match &ingredients.wanted {
                Value::Int(t) => {
                    for edited in [
                        *t,
                        t.saturating_add(1),
                        t.saturating_sub(1),
                        t.saturating_mul(2),
                    ] {
                        out.push(Value::Int(edited));
                    }
                }
                wanted => {
                    if let Some(len) = wanted.len() {
                        let len = len as i128;
                        for edited in [len, len + 1, len - 1] {
                            out.push(Value::Int(edited));
                        }
                    }
                }
            }
            out.extend(ingredients.numbers.iter().map(|&n| Value::Int(n)));
        }
        Value::Float(x) => {
            for edited in [x + 1.0, x - 1.0, -x, x * 2.0, x / 2.0, 0.0, x.round()] {
                out.push(Value::Float(edited));
            }
        }
        Value::List(items) => sequence_edits(items, ingredients, out, Value::List),
        Value::Tuple(items) => sequence_edits(items, ingredients, out, Value::Tuple),
        Value::Dict(pairs) => {
            out.push(Value::Dict(Vec::new()));
            for i in 0..pairs.len() {
                let mut edited = pairs.clone();
                edited.remove(i);
                out.push(Value::Dict(edited));
            }
            if let Value::Dict(wanted) = &ingredients.wanted {
                for (key, item) in wanted {
                    let mut edited = pairs.clone();
                    match edited.iter_mut().find(|(k, _)| k == key) {
                        Some(pair) => pair.1 = item.clone(),
                        None => edited.push((key.clone(), item.clone())),
                    }
                    out.push(Value::Dict(edited));
                }
            }
        }
        Value::None | Value::Set(_) | Value::Bytes(_) => {}
    }
    std::mem::take(out)
}

fn sequence_edits(
    items: &[Value],
    ingredients: &Ingredients,
    out: &mut Vec<Value>,
    make: fn(Vec<Value>) -> Value,
) {
    let mut choices: Vec<Value> = Vec::new();
    for choice in ingredients
        .items
        .iter()
        .take(MAX_CHOICES)
        .chain(items.iter())
        .cloned()
    {
        if !choices.contains(&choice) {
            choices.push(choice);
        }
    }
    choices.truncate(MAX_CHOICES + 2);
    for i in 0..items.len() {
        let mut edited = items.to_vec();
        edited.remove(i);
        out.push(make(edited));
    }
    for i in 0..=items.len() {
        for choice in &choices {
            let mut edited = items.to_vec();
            edited.insert(i, choice.clone());
            out.push(make(edited));
        }
    }
    for i in 0..items.len() {
        for choice in &choices {
            if choice != &items[i] {
                let mut edited = items.to_vec();
                edited[i] = choice.clone();
                out.push(make(edited));
            }
        }
    }
    for i in 0..items.len().saturating_sub(1) {
        let mut edited = items.to_vec();
        edited.swap(i, i + 1);
        out.push(make(edited));
    }
    out.push(make(items.iter().rev().cloned().collect()));
    let mut sorted = items.to_vec();
    sorted.sort_by_key(Value::to_python);
    out.push(make(sorted));
}

/// Most values [`inverses`] proposes.
const MAX_INVERSES: usize = 24;

/// Inputs that common transformations would turn into `wanted`, each with
/// how it was made (`reversed`, `joined with ','`): what undoes a reverse,
/// a sort, an append, a split, a count, a running sum, a flatten, a
/// `dict.items()`. `separators` are the string literals of the function,
/// tried as what a split cut at. Most useful first; duplicates and the
/// output itself left out.
pub fn inverses(wanted: &Value, separators: &[String]) -> Vec<(Value, String)> {
    let mut found = Inverses {
        wanted,
        out: Vec::new(),
    };
    // Short literals only: what a split cuts at or a padding repeats.
    let short: Vec<&String> = separators
        .iter()
        .filter(|s| !s.is_empty() && s.chars().count() <= 3)
        .collect();
    match wanted {
        Value::Str(text) => found.of_text(text, &short),
        Value::List(items) | Value::Tuple(items) => {
            let kind = if matches!(wanted, Value::Tuple(_)) {
                "tuple"
            } else {
                "list"
            };
            if let Some(parts) = texts(items) {
                found.joined(&parts, &joiners(&short));
            }
            if let Some(numbers) = ints(items).filter(|numbers| !numbers.is_empty()) {
                found.of_numbers(&numbers);
            }
            found.of_sequence(items);
            found.of_nested(items, kind);
            found.of_text_and_number(items, separators);
            found.of_sequence_as_a_whole(items, kind);
        }
        Value::Dict(pairs) => found.of_dict(pairs),
        Value::Int(n) => found.of_int(*n),
        _ => {}
    }
    let mut out = found.out;
    out.truncate(MAX_INVERSES);
    out
}

/// The proposals of [`inverses`] so far, in order, without duplicates or
/// the output itself. Each method is one family of transformations undone.
struct Inverses<'a> {
    wanted: &'a Value,
    out: Vec<(Value, String)>,
}

/// Every item an int, or `None`.
fn ints(items: &[Value]) -> Option<Vec<i128>> {
    items
        .iter()
        .map(|item| match item {
            Value::Int(n) => Some(*n),
            _ => None,
        })
        .collect()
}

/// Every item a string, or `None`.
fn texts(items: &[Value]) -> Option<Vec<String>> {
    items
        .iter()
        .map(|item| match item {
            Value::Str(text) => Some(text.clone()),
            _ => None,
        })
        .collect()
}

/// What a join may have put between parts: nothing, a space, a comma and
/// the function's short literals (at most five).
fn joiners(short: &[&String]) -> Vec<String> {
    let mut joiners: Vec<String> = vec![String::new(), " ".into(), ",".into()];
    for &separator in short {
        if !joiners.contains(separator) {
            joiners.insert(joiners.len().min(1), separator.clone());
        }
    }
    joiners.truncate(5);
    joiners
}

impl Inverses<'_> {
    fn push(&mut self, value: Value, how: impl Into<String>) {
        if &value != self.wanted && !self.out.iter().any(|(v, _)| v == &value) {
            self.out.push((value, how.into()));
        }
    }

    /// A string: reversed, recased, its words apart, split, stripped, read
    /// as a number.
    fn of_text(&mut self, text: &str, short: &[&String]) {
        self.push(Value::Str(text.chars().rev().collect()), "reversed");
        self.push(Value::Str(text.to_lowercase()), "in lower case");
        self.push(Value::Str(text.to_uppercase()), "in upper case");
        // `MakeItSo`: the words a title-casing join ran together.
        let chars: Vec<char> = text.chars().collect();
        let humps = chars.iter().skip(1).filter(|c| c.is_uppercase()).count();
        if humps > 0 && !text.contains(char::is_whitespace) && chars.len() <= MAX_COMPARED {
            let mut words = String::new();
            for (index, &c) in chars.iter().enumerate() {
                if index > 0 && c.is_uppercase() {
                    words.push(' ');
                }
                words.push(c);
            }
            self.push(
                Value::Str(words.to_lowercase()),
                "its words apart, in lower case",
            );
        }
        self.push(
            Value::List(
                text.split_whitespace()
                    .map(|w| Value::Str(w.into()))
                    .collect(),
            ),
            "split into words",
        );
        self.push(
            Value::List(self.wanted.elements()),
            "as a list of characters",
        );
        for separator in short {
            let pad: Vec<char> = separator.chars().collect();
            let stripped = text.trim_matches(pad.as_slice());
            self.push(
                Value::Str(stripped.into()),
                format!("stripped of {}", python_str(separator)),
            );
            self.push(
                Value::Str(text.replace(separator.as_str(), "")),
                format!("without {}", python_str(separator)),
            );
        }
        if let Ok(n) = text.trim().parse::<i128>() {
            self.push(Value::Int(n), "as a number");
        }
        let bits = text.trim_start_matches("0b");
        if !bits.is_empty() && bits.len() <= 64 && bits.chars().all(|c| c == '0' || c == '1') {
            if let Ok(n) = i128::from_str_radix(bits, 2) {
                self.push(Value::Int(n), "as a binary number");
            }
        }
    }

    /// A sequence of strings: joined (forwards and reversed) with each
    /// joiner.
    fn joined(&mut self, parts: &[String], joiners: &[String]) {
        for joiner in joiners {
            self.push(
                Value::Str(parts.join(joiner)),
                format!("joined with {}", python_str(joiner)),
            );
        }
        let reversed: Vec<String> = parts.iter().rev().cloned().collect();
        for joiner in joiners.iter().take(3) {
            self.push(
                Value::Str(reversed.join(joiner)),
                format!("reversed, joined with {}", python_str(joiner)),
            );
        }
    }

    /// A sequence of ints: its digits as a number, its largest and last
    /// item, its sum, running sums and differences undone.
    fn of_numbers(&mut self, numbers: &[i128]) {
        if numbers.iter().all(|n| (0..=9).contains(n)) && numbers.len() <= 18 {
            let digits: String = numbers.iter().map(|n| n.to_string()).collect();
            let reversed: String = digits.chars().rev().collect();
            for (text, how) in [(reversed, "digits, reversed"), (digits, "digits")] {
                if let Ok(n) = text.parse::<i128>() {
                    self.push(Value::Int(n), format!("as the number of its {how}"));
                }
            }
        }
        let last = *numbers.last().unwrap_or(&0);
        let max = numbers.iter().copied().max().unwrap_or(0);
        self.push(Value::Int(max), "its largest item");
        self.push(Value::Int(last), "its last item");
        self.push(
            Value::Int(numbers.iter().fold(0i128, |a, &n| a.saturating_add(n))),
            "its sum",
        );
        let mut previous = 0;
        let differences: Vec<Value> = numbers
            .iter()
            .map(|&n| {
                let step = n.saturating_sub(previous);
                previous = n;
                Value::Int(step)
            })
            .collect();
        self.push(Value::List(differences), "as steps (undoing a running sum)");
        let mut total: i128 = 0;
        let sums: Vec<Value> = numbers
            .iter()
            .map(|&n| {
                total = total.saturating_add(n);
                Value::Int(total)
            })
            .collect();
        let mut from_zero = vec![Value::Int(0)];
        from_zero.extend(sums.iter().cloned());
        self.push(Value::List(sums), "as running sums (undoing differences)");
        self.push(
            Value::List(from_zero),
            "as running sums from 0 (undoing differences)",
        );
    }

    /// Any sequence: reversed, without its last or first item.
    fn of_sequence(&mut self, items: &[Value]) {
        let mut reversed = items.to_vec();
        reversed.reverse();
        self.push(Value::List(reversed), "reversed");
        if items.len() > 1 {
            self.push(
                Value::List(items[..items.len() - 1].to_vec()),
                "without its last item",
            );
            self.push(Value::List(items[1..].to_vec()), "without its first item");
        }
    }

    /// A sequence of sequences: transposed, flattened, and as the dict of
    /// its pairs (forwards and reversed).
    fn of_nested(&mut self, items: &[Value], kind: &str) {
        if items.is_empty()
            || !items
                .iter()
                .all(|item| matches!(item, Value::List(_) | Value::Tuple(_)))
        {
            return;
        }
        let rows: Vec<Vec<Value>> = items.iter().map(Value::elements).collect();
        let width = rows[0].len();
        if width > 0 && rows.iter().all(|row| row.len() == width) {
            let columns: Vec<Value> = (0..width)
                .map(|column| Value::List(rows.iter().map(|row| row[column].clone()).collect()))
                .collect();
            self.push(Value::List(columns), "transposed");
        }
        let flat: Vec<Value> = items.iter().flat_map(Value::elements).collect();
        self.push(Value::List(flat), "flattened");
        let pairs: Option<Vec<(Value, Value)>> = items
            .iter()
            .map(|item| match item.elements().as_slice() {
                [key, value] if is_hashable(key) => Some((key.clone(), value.clone())),
                _ => None,
            })
            .collect();
        if let Some(pairs) = pairs {
            let mut reversed = pairs.clone();
            reversed.reverse();
            self.push(
                Value::Dict(pairs),
                format!("as a dict of its pairs ({kind} of items)"),
            );
            self.push(
                Value::Dict(reversed),
                format!("as a dict of its pairs, reversed ({kind} of popped items)"),
            );
        }
    }

    /// `(text, n)` or `(n, text)` split off one string: the number written
    /// next to the text, or a one-character literal repeated n times (what
    /// a strip or a count took off).
    fn of_text_and_number(&mut self, items: &[Value], separators: &[String]) {
        let [first, second] = items else {
            return;
        };
        let (text, n) = match (first, second) {
            (Value::Str(text), Value::Int(n)) | (Value::Int(n), Value::Str(text)) => {
                (text.clone(), *n)
            }
            _ => return,
        };
        let joined = if matches!(first, Value::Int(_)) {
            format!("{n}{text}")
        } else {
            format!("{text}{n}")
        };
        self.push(Value::Str(joined), "its text and number written together");
        if (1..=20).contains(&n) {
            for pad in separators.iter().filter(|s| s.chars().count() == 1).take(2) {
                let padding = pad.repeat(n as usize);
                self.push(
                    Value::Str(format!("{padding}{text}")),
                    format!("its text after {} {n} times", python_str(pad)),
                );
                self.push(
                    Value::Str(format!("{text}{padding}")),
                    format!("its text before {} {n} times", python_str(pad)),
                );
            }
        }
    }

    /// The sequence itself: in a list, as a list, as keys numbered in
    /// order.
    fn of_sequence_as_a_whole(&mut self, items: &[Value], kind: &str) {
        self.push(
            Value::List(vec![self.wanted.clone()]),
            format!("in a list (undoing a flatten of the {kind})"),
        );
        if matches!(self.wanted, Value::Tuple(_)) {
            self.push(Value::List(items.to_vec()), "as a list");
        }
        if items.iter().all(is_hashable) && !items.is_empty() {
            let indexed: Vec<(Value, Value)> = items
                .iter()
                .enumerate()
                .map(|(index, item)| (item.clone(), Value::Int(index as i128)))
                .collect();
            self.push(Value::Dict(indexed), "as keys numbered in order");
        }
    }

    /// A dict: counts spelled out, its pairs, a grouping undone, its keys,
    /// keys and values swapped, its values.
    fn of_dict(&mut self, pairs: &[(Value, Value)]) {
        let counts: Option<Vec<(String, i128)>> = pairs
            .iter()
            .map(|(key, value)| match (key, value) {
                (Value::Str(text), Value::Int(n)) if (0..=20).contains(n) => {
                    Some((text.clone(), *n))
                }
                _ => None,
            })
            .collect();
        if let Some(counts) = counts {
            let text: String = counts.iter().map(|(k, n)| k.repeat(*n as usize)).collect();
            self.push(Value::Str(text), "each key repeated by its count");
            let items: Vec<Value> = counts
                .iter()
                .flat_map(|(k, n)| std::iter::repeat_n(Value::Str(k.clone()), *n as usize))
                .collect();
            self.push(Value::List(items), "each key listed by its count");
        }
        let keys: Vec<Value> = pairs.iter().map(|(k, _)| k.clone()).collect();
        let values: Vec<Value> = pairs.iter().map(|(_, v)| v.clone()).collect();
        let items: Vec<Value> = pairs
            .iter()
            .map(|(k, v)| Value::Tuple(vec![k.clone(), v.clone()]))
            .collect();
        self.push(Value::List(items), "as its list of (key, value) pairs");
        let spread: Vec<Value> = pairs
            .iter()
            .flat_map(|(k, v)| match v {
                Value::List(values) => values
                    .iter()
                    .map(|v| Value::Tuple(vec![k.clone(), v.clone()]))
                    .collect(),
                other => vec![Value::Tuple(vec![k.clone(), other.clone()])],
            })
            .collect();
        self.push(Value::List(spread), "as (key, item) pairs of its lists");
        // `{1: ['x', 'z'], 2: ['y']}`: a grouping of keys by value, undone.
        let grouped: Option<Vec<(Value, Value)>> = pairs
            .iter()
            .map(|(key, value)| match value {
                Value::List(members) if members.iter().all(is_hashable) => Some(
                    members
                        .iter()
                        .map(|member| (member.clone(), key.clone()))
                        .collect::<Vec<_>>(),
                ),
                _ => None,
            })
            .collect::<Option<Vec<Vec<_>>>>()
            .map(|groups| groups.into_iter().flatten().collect());
        if let Some(grouped) = grouped.filter(|g| !g.is_empty()) {
            self.push(
                Value::Dict(grouped),
                "ungrouped (each item keyed to its group)",
            );
        }
        self.push(Value::List(keys), "its keys");
        if values.iter().all(is_hashable) {
            let inverted: Vec<(Value, Value)> =
                pairs.iter().map(|(k, v)| (v.clone(), k.clone())).collect();
            self.push(Value::Dict(inverted), "keys and values swapped");
        }
        self.push(Value::List(values), "its values");
    }

    /// An int: as text, its digits, one off, negated.
    fn of_int(&mut self, n: i128) {
        self.push(Value::Str(n.to_string()), "as text");
        let digits: Vec<Value> = n
            .unsigned_abs()
            .to_string()
            .chars()
            .map(|c| Value::Int(c as i128 - '0' as i128))
            .collect();
        self.push(Value::List(digits), "as a list of its digits");
        self.push(Value::Int(n.saturating_sub(1)), "minus one");
        self.push(Value::Int(n.saturating_add(1)), "plus one");
        self.push(Value::Int(n.saturating_neg()), "negated");
    }
}

/// Whether Python could use the value as a dict key or set item.
fn is_hashable(value: &Value) -> bool {
    match value {
        Value::List(_) | Value::Dict(_) | Value::Set(_) => false,
        Value::Tuple(items) => items.iter().all(is_hashable),
        _ => true,
    }
}

pub(crate) fn swap_case(c: char) -> char {
    if c.is_lowercase() {
        c.to_uppercase().next().unwrap_or(c)
    } else if c.is_uppercase() {
        c.to_lowercase().next().unwrap_or(c)
    } else {
        c
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn inverses_undo_common_transformations_of_the_output() {
        let inverse = |wanted: &str, separators: &[&str]| -> Vec<String> {
            let separators: Vec<String> = separators.iter().map(|s| s.to_string()).collect();
            inverses(&parse_literal(wanted).unwrap(), &separators)
                .into_iter()
                .map(|(value, _)| value.to_python())
                .collect()
        };
        let has = |found: &[String], want: &str| {
            assert!(found.iter().any(|f| f == want), "{want} not in {found:?}")
        };
        // A count of characters, from the text that has them.
        has(&inverse("{'b': 1, 'a': 3}", &[]), "'baaa'");
        // A split at a literal of the function, from the joined text.
        has(&inverse("['red', 'blue']", &[","]), "'red,blue'");
        // A running sum, from its steps; a list of digits, from the number.
        has(&inverse("[5, 3, 6]", &[]), "[5, -2, 3]");
        has(&inverse("[2, 1, 7]", &[]), "712");
        // A grouping into a dict of lists, from its pairs; a flatten.
        has(
            &inverse("{'a': [1, 3], 'b': [2]}", &[]),
            "[('a', 1), ('a', 3), ('b', 2)]",
        );
        has(&inverse("[1, 2]", &[]), "[[1, 2]]");
        has(&inverse("[[1, 3], [2, 4]]", &[]), "[[1, 2], [3, 4]]");
        // A padding with a literal of the function, from the text inside.
        has(&inverse("'**mid**'", &["*"]), "'mid'");
        // Words a title-casing join ran together; a binary number.
        has(&inverse("'makeItSo'", &[]), "'make it so'");
        has(&inverse("'100101'", &[]), "37");
        // Differences, from running sums that start at 0.
        has(&inverse("[3, 5, 7]", &[]), "[0, 3, 8, 15]");
        // A text and a number split apart; a strip that counted a literal.
        has(&inverse("('file', 7)", &[]), "'file7'");
        has(&inverse("(3, '42')", &["0"]), "'00042'");
        // Items keyed by group, from the groups; popped pairs, reversed.
        has(
            &inverse("{1: ['x', 'z'], 2: ['y']}", &[]),
            "{'x': 1, 'z': 1, 'y': 2}",
        );
        has(&inverse("[(2, 'b'), (1, 'a')]", &[]), "{1: 'a', 2: 'b'}");
        // Never the output itself, never twice the same value.
        let found = inverse("'abba'", &[]);
        assert!(!found.contains(&"'abba'".to_string()), "{found:?}");
        let mut unique = found.clone();
        unique.sort();
        unique.dedup();
        assert_eq!(unique.len(), found.len());
        assert!(inverse("None", &[]).is_empty());
        // Numbers at the edge of what a literal holds do not overflow.
        let huge = i128::MAX.to_string();
        assert!(!inverse(&format!("[{huge}, {huge}, -{huge}]"), &[]).is_empty());
        assert!(!inverse(&format!("-{huge}"), &[]).is_empty());
    }

    #[test]
    fn literals_round_trip_through_python_text() {
        for text in [
            "None",
            "[1, -2, 3.5, 'a', \"it's\"]",
            "{'k': (1,), 2: [True, False]}",
            "(1, 2)",
            "()",
            "set()",
            "{1, 2}",
            "'a\\nb\\\\'",
            "b'x\\x00'",
        ] {
            let value = parse_literal(text).unwrap_or_else(|e| panic!("{text}: {e}"));
            assert_eq!(value.to_python(), text, "{text}");
        }
        assert_eq!(parse_literal("(1)"), Ok(Value::Int(1)));
        assert_eq!(parse_literal("'a' 'b'"), Ok(Value::Str("ab".into())));
        assert_eq!(parse_literal("1_000"), Ok(Value::Int(1000)));
        assert_eq!(parse_literal("1e3"), Ok(Value::Float(1000.0)));
        assert_eq!(parse_literal("'\\u00e9'"), Ok(Value::Str("é".into())));
    }

    #[test]
    fn what_is_not_a_literal_says_why_and_where() {
        for bad in ["abc", "[1, 2", "'open", "f(1)", "1 2", "", "{1: }", "-'a'"] {
            let error = parse_literal(bad).expect_err(bad);
            assert!(!error.message.is_empty(), "{bad}");
        }
        assert!(parse_literal("abc")
            .unwrap_err()
            .message
            .contains("strings need quotes"));
        let deep = "[".repeat(1000);
        assert!(parse_literal(&deep).is_err());
    }

    #[test]
    fn arguments_are_a_tuple_of_literals() {
        assert_eq!(
            parse_arguments("1, 'a,b', [2]"),
            Ok(vec![
                Value::Int(1),
                Value::Str("a,b".into()),
                Value::List(vec![Value::Int(2)])
            ])
        );
        assert_eq!(
            parse_arguments("(1, )"),
            Ok(vec![Value::Tuple(vec![Value::Int(1)])])
        );
        assert!(parse_arguments("x=1").is_err());
    }

    #[test]
    fn distance_is_zero_only_when_equal_and_grows_with_edits() {
        let wanted = parse_literal("'abcd'").unwrap();
        let near = parse_literal("'abd'").unwrap();
        let far = parse_literal("'x'").unwrap();
        assert_eq!(distance(&wanted, &wanted), 0.0);
        assert!(distance(&near, &wanted) < distance(&far, &wanted));
        assert!(
            distance(&Value::Int(3), &Value::Int(4)) < distance(&Value::Int(9), &Value::Int(4))
        );
        assert!(distance(&Value::Int(4), &wanted) > distance(&far, &wanted));
    }

    #[test]
    fn edits_move_the_length_the_way_the_output_needs() {
        let ingredients = Ingredients::new(&parse_literal("'abc'").unwrap(), &[]);
        let value = Value::Str("ab".into());
        let shorter_output = Value::Str("a".into());
        let edits = edits(&value, Some(&shorter_output), &ingredients);
        assert_eq!(edits[0].len(), Some(3), "{edits:?}");
        let longer_output = Value::Str("abcdef".into());
        let edits = super::edits(&value, Some(&longer_output), &ingredients);
        assert_eq!(edits[0].len(), Some(1), "{edits:?}");
        assert!(!edits.contains(&value));
    }
}

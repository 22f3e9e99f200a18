//! What the suggestion search reads from the Python source, all of it here
//! and by one small tokenizer: the calls of the function the file itself
//! makes (doctests, tests, other calls, `# ndb:` comments), the literals of
//! the function's body, and hints of each parameter's type from how the
//! body uses it. Front ends that parse Python properly (the language
//! server's and the agent tools' tree-sitter) pass their entry calls in as
//! seeds; this reading is deliberately small.

use ndb_grammar::locate::FunctionSpan;
use ndb_grammar::state::source_lines;

use super::value::{parse_literal, Kind, Value};

/// One token of Python text; what the search needs and nothing more.
#[derive(Clone, Debug, PartialEq)]
enum Token {
    Name(String),
    /// A string or number literal, as its source text.
    Literal(String),
    Punct(String),
}

/// Splits `text` into tokens, skipping comments. Never panics; an unclosed
/// string runs to the end of the text.
fn tokens(text: &str) -> Vec<Token> {
    let chars: Vec<char> = text.chars().collect();
    let mut out = Vec::new();
    let mut at = 0;
    while at < chars.len() {
        let c = chars[at];
        if c == '#' {
            while at < chars.len() && chars[at] != '\n' {
                at += 1;
            }
        } else if c.is_whitespace() {
            at += 1;
        } else if c == '\'' || c == '"' {
            let start = at;
            at = string_end(&chars, at);
            out.push(Token::Literal(chars[start..at].iter().collect()));
        } else if c.is_alphabetic() || c == '_' {
            let start = at;
            while at < chars.len() && (chars[at].is_alphanumeric() || chars[at] == '_') {
                at += 1;
            }
            let word: String = chars[start..at].iter().collect();
            let prefix = word.to_ascii_lowercase();
            if at < chars.len()
                && (chars[at] == '\'' || chars[at] == '"')
                && prefix.len() <= 2
                && prefix.chars().all(|c| matches!(c, 'r' | 'b' | 'u' | 'f'))
            {
                // A prefixed string: kept only when it reads as a plain
                // literal (not raw, not formatted).
                let end = string_end(&chars, at);
                if !prefix.contains(['r', 'f']) {
                    out.push(Token::Literal(chars[start..end].iter().collect()));
                }
                at = end;
            } else {
                out.push(Token::Name(word));
            }
        } else if c.is_ascii_digit()
            || (c == '.' && chars.get(at + 1).is_some_and(char::is_ascii_digit))
        {
            let start = at;
            while at < chars.len()
                && (chars[at].is_ascii_alphanumeric()
                    || chars[at] == '.'
                    || chars[at] == '_'
                    || ((chars[at] == '-' || chars[at] == '+')
                        && matches!(chars[at - 1], 'e' | 'E')))
            {
                at += 1;
            }
            out.push(Token::Literal(chars[start..at].iter().collect()));
        } else {
            let two: String = chars[at..(at + 2).min(chars.len())].iter().collect();
            if matches!(two.as_str(), "//" | "**" | "==" | "!=" | "<=" | ">=" | "->") {
                out.push(Token::Punct(two));
                at += 2;
            } else {
                out.push(Token::Punct(c.to_string()));
                at += 1;
            }
        }
    }
    out
}

/// Where the string starting at `start` (a quote) ends, past its closing
/// quote(s).
fn string_end(chars: &[char], start: usize) -> usize {
    let quote = chars[start];
    let triple = chars.get(start..start + 3) == Some(&[quote, quote, quote][..]);
    let mut at = start + if triple { 3 } else { 1 };
    while at < chars.len() {
        let c = chars[at];
        if c == '\\' {
            at += 2;
            continue;
        }
        if c == quote {
            if !triple {
                return at + 1;
            }
            if chars.get(at..at + 3) == Some(&[quote, quote, quote][..]) {
                return at + 3;
            }
        }
        if c == '\n' && !triple {
            return at;
        }
        at += 1;
    }
    chars.len()
}

/// The punctuation at `index` of `tokens`, if that token is punctuation.
fn punct_at(tokens: &[Token], index: usize) -> Option<&str> {
    match tokens.get(index) {
        Some(Token::Punct(p)) => Some(p.as_str()),
        _ => None,
    }
}

/// The name at `index` of `tokens`, if that token is a name.
fn name_at(tokens: &[Token], index: usize) -> Option<&str> {
    match tokens.get(index) {
        Some(Token::Name(name)) => Some(name.as_str()),
        _ => None,
    }
}

/// The text of a function's lines, header and body.
fn function_text(source: &str, span: &FunctionSpan) -> String {
    source_lines(source)
        .skip(span.def_line as usize - 1)
        .take((span.end_line.max(span.def_line) - span.def_line + 1) as usize)
        .collect::<Vec<_>>()
        .join("\n")
}

/// Longest argument text taken from a call in the file.
const MAX_CALL_CHARS: usize = 2_000;

/// The argument texts of the calls of `function` the file makes, in file
/// order, without duplicates, each with whether it is a doctest's
/// (`>>> f(1, 2)`): in a test, in an `# ndb: f(1, 2)` comment or anywhere
/// else. The `def` itself and method calls (`x.f(...)`) are not calls of it.
pub fn calls_in_source(source: &str, function: &str) -> Vec<(String, bool)> {
    let chars: Vec<char> = source.chars().collect();
    let name: Vec<char> = function.chars().collect();
    let mut found: Vec<(String, bool)> = Vec::new();
    let mut at = 0;
    while at + name.len() < chars.len() {
        let matches = chars[at..at + name.len()] == name[..]
            && chars.get(at + name.len()) == Some(&'(')
            && (at == 0 || {
                let before = chars[at - 1];
                !(before.is_alphanumeric() || before == '_' || before == '.')
            });
        if !matches {
            at += 1;
            continue;
        }
        let line_start = chars[..at]
            .iter()
            .rposition(|&c| c == '\n')
            .map_or(0, |p| p + 1);
        let before: String = chars[line_start..at].iter().collect();
        let is_def = before.trim_end().ends_with("def");
        let doctest = before.trim_start().starts_with(">>>");
        let open = at + name.len();
        at = open + 1;
        if is_def {
            continue;
        }
        if let Some(close) = closing_paren(&chars, open) {
            let arguments: String = chars[open + 1..close].iter().collect();
            let arguments = arguments.trim().to_string();
            if !arguments.is_empty() && !found.iter().any(|(known, _)| known == &arguments) {
                found.push((arguments, doctest));
            }
            at = close + 1;
        }
    }
    found
}

/// The `)` that closes the `(` at `open`, outside strings; `None` when it
/// does not close within [`MAX_CALL_CHARS`].
fn closing_paren(chars: &[char], open: usize) -> Option<usize> {
    let mut depth = 0usize;
    let mut at = open;
    while at < chars.len() && at - open <= MAX_CALL_CHARS {
        match chars[at] {
            '\'' | '"' => {
                at = string_end(chars, at);
                continue;
            }
            '(' | '[' | '{' => depth += 1,
            ')' | ']' | '}' => {
                depth = depth.checked_sub(1)?;
                if depth == 0 {
                    return (chars[at] == ')').then_some(at);
                }
            }
            _ => {}
        }
        at += 1;
    }
    None
}

/// Most literals taken from one function.
const MAX_LITERALS: usize = 12;

/// The string and number literals of the function's text (header defaults
/// included), in order, without duplicates, at most [`MAX_LITERALS`].
pub fn literals(source: &str, span: &FunctionSpan) -> Vec<Value> {
    let mut found: Vec<Value> = Vec::new();
    for token in tokens(&function_text(source, span)) {
        if let Token::Literal(text) = token {
            // Docstrings and other long texts are not inputs.
            if text.starts_with("\"\"\"") || text.starts_with("'''") {
                continue;
            }
            if let Ok(value @ (Value::Str(_) | Value::Int(_) | Value::Float(_))) =
                parse_literal(&text)
            {
                if !found.contains(&value) {
                    found.push(value);
                }
            }
        }
        if found.len() >= MAX_LITERALS {
            break;
        }
    }
    found
}

const STR_METHODS: &[&str] = &[
    "lower",
    "upper",
    "split",
    "strip",
    "rstrip",
    "lstrip",
    "replace",
    "find",
    "rfind",
    "startswith",
    "endswith",
    "isdigit",
    "isalpha",
    "isnumeric",
    "isalnum",
    "isupper",
    "islower",
    "isspace",
    "title",
    "capitalize",
    "swapcase",
    "join",
    "partition",
    "rpartition",
    "center",
    "ljust",
    "rjust",
    "zfill",
    "splitlines",
    "casefold",
    "encode",
    "format",
    "isdecimal",
    "istitle",
    "isascii",
    "isidentifier",
    "expandtabs",
    "rsplit",
    "removeprefix",
    "removesuffix",
    "translate",
    "rindex",
];
const LIST_METHODS: &[&str] = &[
    "append", "pop", "insert", "sort", "reverse", "extend", "remove",
];
const DICT_METHODS: &[&str] = &[
    "items",
    "keys",
    "values",
    "get",
    "update",
    "setdefault",
    "popitem",
];

/// The kinds each parameter's uses in the function suggest, by name: an
/// annotation (`x: str`), a method only one type has (`x.lower()`), a
/// number's operations (`x % 2`, `range(x)`, `a[x]`, a slice bound `s[:x]`,
/// an order comparison `x < n`), an argument of a string method
/// (`s.find(x)`, `s.rjust(x, y)`).
pub fn type_hints(source: &str, span: &FunctionSpan, parameters: &[String]) -> Vec<Vec<Kind>> {
    let tokens = tokens(&function_text(source, span));
    let mut hints: Vec<Vec<Kind>> = vec![Vec::new(); parameters.len()];
    fn add_hint(hints: &mut [Vec<Kind>], parameters: &[String], name: &str, kind: Kind) {
        if let Some(index) = parameters.iter().position(|p| p == name) {
            if !hints[index].contains(&kind) {
                hints[index].push(kind);
            }
        }
    }
    let mut add = |name: &str, kind: Kind| add_hint(&mut hints, parameters, name, kind);
    let name_at = |index: usize| name_at(&tokens, index);
    let punct_at = |index: usize| punct_at(&tokens, index);
    // The header, up to its `:` at depth zero: annotations.
    let mut depth = 0i32;
    let mut header_end = tokens.len();
    for (index, token) in tokens.iter().enumerate() {
        match token {
            Token::Punct(p) if p == "(" || p == "[" => depth += 1,
            Token::Punct(p) if p == ")" || p == "]" => depth -= 1,
            Token::Punct(p) if p == ":" && depth == 0 => {
                header_end = index;
                break;
            }
            _ => {}
        }
    }
    for index in 0..header_end {
        if let (Some(name), Some(":"), Some(annotation)) =
            (name_at(index), punct_at(index + 1), name_at(index + 2))
        {
            let kind = match annotation.to_ascii_lowercase().as_str() {
                "str" => Some(Kind::Str),
                "int" => Some(Kind::Int),
                "float" => Some(Kind::Float),
                "bool" => Some(Kind::Bool),
                "list" | "sequence" => Some(Kind::List),
                "dict" | "mapping" => Some(Kind::Dict),
                "tuple" => Some(Kind::Tuple),
                _ => None,
            };
            if let Some(kind) = kind {
                add(name, kind);
            }
        }
    }
    let arithmetic = ["-", "%", "//", "/"];
    // (index, the container's position) of `container[index]` where the
    // container is a parameter.
    let mut keys: Vec<(String, usize)> = Vec::new();
    for index in header_end..tokens.len() {
        let Some(name) = name_at(index) else { continue };
        if punct_at(index + 1) == Some(".") && punct_at(index + 3) == Some("(") {
            if let Some(method) = name_at(index + 2) {
                if STR_METHODS.contains(&method) {
                    add(name, Kind::Str);
                }
                if LIST_METHODS.contains(&method) {
                    add(name, Kind::List);
                }
                if DICT_METHODS.contains(&method) {
                    add(name, Kind::Dict);
                }
            }
        }
        let after = punct_at(index + 1);
        let before = index.checked_sub(1).and_then(punct_at);
        // `'%s!' % x` formats `x`, whatever it is: no arithmetic.
        let formatted = before == Some("%")
            && index
                .checked_sub(2)
                .and_then(|at| tokens.get(at))
                .is_some_and(is_string_literal);
        // `xs[i] - 1`, `- s.count(c)`: the arithmetic is on an item or a
        // method's result, not on the parameter.
        let reached_into = matches!(after, Some("[" | "." | "("));
        if !reached_into
            && (after.is_some_and(|p| arithmetic.contains(&p))
                || before.is_some_and(|p| arithmetic.contains(&p)) && !formatted)
        {
            add(name, Kind::Int);
        }
        if before == Some("[") && after == Some("]") {
            // `d[key]` of a parameter that is a dict takes any key: decided
            // once every use of `d` is read (below).
            let container = index
                .checked_sub(2)
                .and_then(name_at)
                .and_then(|container| parameters.iter().position(|p| p == container));
            match container {
                Some(at) => keys.push((name.to_string(), at)),
                None => add(name, Kind::Int),
            }
        }
        // A slice's bound or step (`s[:n]`, `xs[a:b]`, `xs[::k]`).
        if matches!(before, Some("[" | ":"))
            && matches!(after, Some(":" | "]"))
            && (before == Some(":") || after == Some(":"))
        {
            add(name, Kind::Int);
        }
        // An order comparison (`x < n`, `len(s) >= n`): mostly numbers.
        let ordered = ["<", ">", "<=", ">="];
        if after.is_some_and(|p| ordered.contains(&p))
            || before.is_some_and(|p| ordered.contains(&p))
        {
            add(name, Kind::Int);
        }
        // The arguments of string methods whose parameters have one type:
        // `s.find(sub)`, `s.split(sep, n)`, `s.rjust(width, fill)`.
        if before == Some("(") || before == Some(",") {
            if let Some(kind) = string_method_argument(&tokens, index) {
                add(name, kind);
            }
        }
        // `range`'s own arguments are numbers (`range(n)`, `range(0, n,
        // step)`, `range(n - 1)`), not what a call inside it reads: in
        // `range(len(text))` the text has a length, it is no number.
        if name == "range" && punct_at(index + 1) == Some("(") {
            let mut depth = 0i32;
            for (at, token) in tokens.iter().enumerate().skip(index + 1) {
                match token {
                    Token::Punct(p) if p == "(" || p == "[" => depth += 1,
                    Token::Punct(p) if p == ")" || p == "]" => {
                        depth -= 1;
                        if depth == 0 {
                            break;
                        }
                    }
                    Token::Name(inner)
                        if depth == 1
                            && !matches!(punct_at(at + 1), Some("(" | "[" | "."))
                            && at.checked_sub(1).and_then(punct_at) != Some(".") =>
                    {
                        add(inner, Kind::Int)
                    }
                    _ => {}
                }
            }
        }
    }
    // An index into a parameter is a number unless the parameter is a
    // dict (by its uses or, when they say nothing, its name).
    let numbers: Vec<String> = keys
        .into_iter()
        .filter(|&(_, at)| match hints[at].is_empty() {
            true => name_hint(&parameters[at]) != Some(Kind::Dict),
            false => !hints[at].contains(&Kind::Dict),
        })
        .map(|(name, _)| name)
        .collect();
    for name in numbers {
        add_hint(&mut hints, parameters, &name, Kind::Int);
    }
    // A parameter its uses say nothing about: what its name says, if it
    // names a type the way code usually does (`text`, `nums`, `n`, `d`).
    for (hint, name) in hints.iter_mut().zip(parameters) {
        if hint.is_empty() {
            hint.extend(name_hint(name));
        }
    }
    hints
}

/// Whether `token` is a string literal (`'a'`, `"a"`, `f'{x}'`, `rb'..'`).
fn is_string_literal(token: &Token) -> bool {
    matches!(token, Token::Literal(text)
        if text.trim_start_matches(|c: char| c.is_ascii_alphabetic()).starts_with(['\'', '"']))
}

/// The type a parameter's name usually stands for, for the common names
/// only.
fn name_hint(name: &str) -> Option<Kind> {
    let name = name.to_ascii_lowercase();
    let is = |names: &[&str]| names.contains(&name.as_str());
    if is(&[
        "text",
        "s",
        "string",
        "st",
        "txt",
        "word",
        "char",
        "ch",
        "sep",
        "separator",
        "delimiter",
        "prefix",
        "suffix",
        "sub",
        "substring",
        "sentence",
        "line",
        "letter",
        "message",
        "msg",
        "pattern",
    ]) {
        Some(Kind::Str)
    } else if is(&[
        "nums", "numbers", "arr", "array", "lst", "list", "items", "elements", "vals", "values",
        "words", "names", "strings", "seq", "sequence", "matrix",
    ]) {
        Some(Kind::List)
    } else if is(&[
        "n", "k", "num", "number", "index", "idx", "count", "size", "width", "length", "limit",
        "start", "stop", "step", "pos", "position", "amount", "times", "shift", "offset",
    ]) {
        Some(Kind::Int)
    } else if is(&["d", "dic", "dict", "dictionary", "mapping"]) {
        Some(Kind::Dict)
    } else {
        None
    }
}

/// One argument of a list method's call in the function's body.
#[derive(Clone, Debug, PartialEq)]
pub enum CallArgument {
    /// A parameter's bare name (its position).
    Parameter(usize),
    /// An integer literal (`0`, `-1`).
    Int(i128),
    /// Anything else (`i + 1`, `len(xs)`).
    Other,
}

/// A call in the function's body that adds to a list parameter, whose
/// effect on an output list can be undone: `xs.insert(i, x)`,
/// `xs.append(x)`, `xs.extend(ys)`.
#[derive(Clone, Debug, PartialEq)]
pub enum ListGrowth {
    Insert {
        list: usize,
        index: CallArgument,
        item: CallArgument,
    },
    Append {
        list: usize,
        item: CallArgument,
    },
    Extend {
        list: usize,
        items: CallArgument,
    },
}

/// Most list calls read from one function.
const MAX_GROWTHS: usize = 4;

/// The `insert`, `append` and `extend` calls on a parameter in the
/// function's body, in order (at most [`MAX_GROWTHS`]); `parameters` are
/// the positional parameters' names.
pub fn list_growths(source: &str, span: &FunctionSpan, parameters: &[String]) -> Vec<ListGrowth> {
    let tokens = tokens(&function_text(source, span));
    let parameter = |token: Option<&Token>| match token {
        Some(Token::Name(name)) => parameters.iter().position(|p| p == name),
        _ => None,
    };
    let mut found = Vec::new();
    for index in 0..tokens.len() {
        let Some(list) = parameter(tokens.get(index)) else {
            continue;
        };
        let Some(method) = name_at(&tokens, index + 2) else {
            continue;
        };
        if punct_at(&tokens, index + 1) != Some(".") || punct_at(&tokens, index + 3) != Some("(") {
            continue;
        }
        // A method call on a parameter itself, not on an attribute of it
        // (`self.items.append`) or a call's result.
        if index > 0 && punct_at(&tokens, index - 1) == Some(".") {
            continue;
        }
        let Some(arguments) = call_arguments(&tokens[index + 3..]) else {
            continue;
        };
        let argument = |group: &[Token]| match group {
            [token] => match parameter(Some(token)) {
                Some(position) => CallArgument::Parameter(position),
                None => match token {
                    Token::Literal(text) => {
                        text.parse().map_or(CallArgument::Other, CallArgument::Int)
                    }
                    _ => CallArgument::Other,
                },
            },
            [Token::Punct(minus), Token::Literal(text)] if minus == "-" => text
                .parse::<i128>()
                .map_or(CallArgument::Other, |n| CallArgument::Int(-n)),
            _ => CallArgument::Other,
        };
        let growth = match (method, arguments.as_slice()) {
            ("insert", [at, item]) => ListGrowth::Insert {
                list,
                index: argument(at),
                item: argument(item),
            },
            ("append", [item]) => ListGrowth::Append {
                list,
                item: argument(item),
            },
            ("extend", [items]) => ListGrowth::Extend {
                list,
                items: argument(items),
            },
            _ => continue,
        };
        if !found.contains(&growth) {
            found.push(growth);
        }
        if found.len() >= MAX_GROWTHS {
            break;
        }
    }
    found
}

/// The arguments of the call whose `(` is `tokens[0]`, each as its tokens,
/// split at the commas outside brackets; `None` when the call does not
/// close.
fn call_arguments(tokens: &[Token]) -> Option<Vec<Vec<Token>>> {
    let mut depth = 0i32;
    let mut groups: Vec<Vec<Token>> = vec![Vec::new()];
    for token in tokens {
        match token {
            Token::Punct(p) if matches!(p.as_str(), "(" | "[" | "{") => {
                depth += 1;
                if depth == 1 {
                    continue;
                }
            }
            Token::Punct(p) if matches!(p.as_str(), ")" | "]" | "}") => {
                depth -= 1;
                if depth == 0 {
                    groups.retain(|group| !group.is_empty());
                    return Some(groups);
                }
            }
            Token::Punct(p) if p == "," && depth == 1 => {
                groups.push(Vec::new());
                continue;
            }
            _ => {}
        }
        groups.last_mut()?.push(token.clone());
    }
    None
}

/// The type of a bare-name argument at `index` of a string method's call
/// (`text.find(sub)`: a string; `s.rjust(n, ch)`: a number, then a string),
/// when the method is one only strings have and the argument is a name on
/// its own (`name,` or `name)`).
fn string_method_argument(tokens: &[Token], index: usize) -> Option<Kind> {
    let punct = |at: usize| punct_at(tokens, at);
    if !matches!(punct(index + 1), Some("," | ")")) {
        return None;
    }
    // Back to the call's `(`, counting the arguments before this one.
    let mut position = 0;
    let mut depth = 0i32;
    let mut at = index;
    while at > 0 {
        at -= 1;
        match punct(at) {
            Some(")" | "]" | "}") => depth += 1,
            Some("(" | "[" | "{") if depth > 0 => depth -= 1,
            Some("(") => break,
            Some("[" | "{") => return None,
            Some(",") if depth == 0 => position += 1,
            _ => {}
        }
    }
    if punct(at) != Some("(") || at < 2 || punct(at - 2) != Some(".") {
        return None;
    }
    let Some(Token::Name(method)) = tokens.get(at - 1) else {
        return None;
    };
    let kinds: &[Kind] = match method.as_str() {
        "find" | "rfind" | "rindex" => &[Kind::Str, Kind::Int, Kind::Int],
        "split" | "rsplit" => &[Kind::Str, Kind::Int],
        "startswith" | "endswith" | "partition" | "rpartition" | "removeprefix"
        | "removesuffix" | "strip" | "lstrip" | "rstrip" => &[Kind::Str],
        "replace" => &[Kind::Str, Kind::Str, Kind::Int],
        "rjust" | "ljust" | "center" => &[Kind::Int, Kind::Str],
        "zfill" | "expandtabs" => &[Kind::Int],
        _ => &[],
    };
    kinds.get(position).copied()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::python::function_spans;

    const SOURCE: &str = "\
def f(text, n: int, items):
    \"\"\"Pads.

    >>> f('ab', 3, [1])
    'ab '
    \"\"\"
    # a comment with 'quotes' and 99
    for i in range(n - 1):
        text = text.upper() + '-'
    items.append(0.5)
    return text[n]

def test_f():
    assert f('x', 1, []) == 'X'
    assert obj.f(2) == 1

# ndb: f('ab', 3, [1])
print(f(\"(\", 2, ['a)']))
";

    fn span() -> FunctionSpan {
        function_spans(SOURCE)[0].clone()
    }

    /// The type hints of `source`'s first function, whose positional
    /// parameters are `parameters`.
    fn hints_of(source: &str, parameters: &[&str]) -> Vec<Vec<Kind>> {
        let span = function_spans(source)[0].clone();
        let parameters: Vec<String> = parameters.iter().map(|p| p.to_string()).collect();
        type_hints(source, &span, &parameters)
    }

    #[test]
    fn calls_come_from_doctests_tests_and_the_file_but_not_methods_or_the_def() {
        assert_eq!(
            calls_in_source(SOURCE, "f"),
            [
                ("'ab', 3, [1]".to_string(), true),
                ("'x', 1, []".to_string(), false),
                ("\"(\", 2, ['a)']".to_string(), false)
            ]
        );
        assert!(calls_in_source("def f(x):\n    return x\n", "f").is_empty());
        // An unclosed call is left alone.
        assert!(calls_in_source("f(1, [2\n", "f").is_empty());
    }

    #[test]
    fn literals_skip_comments_and_keep_order() {
        let literals = literals(SOURCE, &span());
        assert_eq!(
            literals,
            [Value::Int(1), Value::Str("-".into()), Value::Float(0.5),]
        );
    }

    #[test]
    fn types_come_from_annotations_methods_and_arithmetic() {
        let parameters: Vec<String> = ["text", "n", "items"].map(String::from).to_vec();
        let hints = type_hints(SOURCE, &span(), &parameters);
        assert_eq!(hints, [vec![Kind::Str], vec![Kind::Int], vec![Kind::List]]);
    }

    #[test]
    fn list_growths_name_their_parameters_and_literal_indices() {
        let source = "\
def g(array, i, elem, more, obj):
    array.insert(i, elem)
    array.insert(-1, elem + 1)
    more.append(elem)
    array.extend(more)
    obj.items.append(i)
    array.insert(len(array), f(i, elem))
    return array
";
        let span = function_spans(source)[0].clone();
        let parameters: Vec<String> = ["array", "i", "elem", "more", "obj"]
            .map(String::from)
            .to_vec();
        use CallArgument::{Int, Other, Parameter};
        assert_eq!(
            list_growths(source, &span, &parameters),
            [
                ListGrowth::Insert {
                    list: 0,
                    index: Parameter(1),
                    item: Parameter(2)
                },
                ListGrowth::Insert {
                    list: 0,
                    index: Int(-1),
                    item: Other
                },
                ListGrowth::Append {
                    list: 3,
                    item: Parameter(2)
                },
                ListGrowth::Extend {
                    list: 0,
                    items: Parameter(3)
                },
            ]
        );
        // An unclosed call is left alone.
        let broken = "def h(xs, x):\n    xs.insert(0, x\n";
        let span = function_spans(broken)[0].clone();
        assert!(list_growths(broken, &span, &["xs".into(), "x".into()]).is_empty());
    }

    #[test]
    fn slices_order_comparisons_and_string_method_arguments_give_types() {
        let source = "\
def g(text, width, sub, fill, lo, step, other):
    head = text[:width]
    if len(text) < lo:
        return text.rjust(width, fill)
    return text.find(sub), text[::step], other
";
        let hints = hints_of(
            source,
            &["text", "width", "sub", "fill", "lo", "step", "other"],
        );
        assert_eq!(
            hints,
            [
                vec![Kind::Str],
                vec![Kind::Int],
                vec![Kind::Str],
                vec![Kind::Str],
                vec![Kind::Int],
                vec![Kind::Int],
                vec![],
            ]
        );
    }

    #[test]
    fn a_key_into_a_dict_is_no_number() {
        let source = "\
def g(table, key, d, name, nums, i):
    if key in table.keys():
        return d[name] + table[key]
    return nums[i]
";
        let hints = hints_of(source, &["table", "key", "d", "name", "nums", "i"]);
        assert_eq!(
            hints,
            [
                vec![Kind::Dict],
                vec![],
                vec![Kind::Dict],
                vec![],
                vec![Kind::List],
                vec![Kind::Int],
            ]
        );
    }

    #[test]
    fn what_a_string_formats_is_no_number() {
        let source = "\
def g(item, qty, total):
    line = '%s x%d' % (item, qty)
    return '<%s>' % item + str(total % 7)
";
        let hints = hints_of(source, &["item", "qty", "total"]);
        assert_eq!(hints, [vec![], vec![], vec![Kind::Int]]);
    }

    #[test]
    fn a_parameter_its_uses_say_nothing_about_is_typed_by_its_name() {
        let source = "\
def g(text, nums, n, dic, other, count):
    return other, text, nums, n, dic, count.upper()
";
        let hints = hints_of(source, &["text", "nums", "n", "dic", "other", "count"]);
        // What a use says wins over the name (`count.upper()`: a string).
        assert_eq!(
            hints,
            [
                vec![Kind::Str],
                vec![Kind::List],
                vec![Kind::Int],
                vec![Kind::Dict],
                vec![],
                vec![Kind::Str],
            ]
        );
    }

    #[test]
    fn what_a_call_inside_range_reads_is_no_number() {
        let source = "\
def g(bag, lo, hi, stride, tab):
    for i in range(len(bag)):
        pass
    for j in range(lo, min(hi, len(tab)), stride):
        pass
    return [bag[k] for k in range(tab.count(0))]
";
        let hints = hints_of(source, &["bag", "lo", "hi", "stride", "tab"]);
        assert_eq!(
            hints,
            [vec![], vec![Kind::Int], vec![], vec![Kind::Int], vec![]]
        );
    }

    #[test]
    fn arithmetic_on_an_item_or_a_result_is_no_number_parameter() {
        let source = "\
def g(nums, text, k):
    gaps = [nums[i + 1] - nums[i] for i in range(2)]
    return gaps, 1 - text.count('a'), k - 1
";
        let hints = hints_of(source, &["nums", "text", "k"]);
        assert!(!hints[0].contains(&Kind::Int), "{hints:?}");
        assert!(!hints[1].contains(&Kind::Int), "{hints:?}");
        assert_eq!(hints[2], vec![Kind::Int]);
    }
}

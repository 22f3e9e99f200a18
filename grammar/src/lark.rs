//! The text language as Lark grammars for constrained decoding with
//! llguidance (mistral.rs `Constraint::Lark`): one state, as the model writes
//! it after `<|action_sep|>ACTION<|frame_sep|>`, and the whole language.
//!
//! Facts the grammars are written for (measured with mistral.rs 0.8.1 and
//! llguidance): special tokens are written bare, as token references
//! (`<|frame_sep|>`), because quoted they would be matched as text; terminals
//! are upper case, rules lower case, literals in double quotes, regexes in
//! `/.../`.
//!
//! Decisions:
//!
//! - [`state_grammar`] starts at the state's event token (the prompt from
//!   [`crate::text::prompt_prefix`] already ends with `<|frame_sep|>`) and
//!   ends after the state, optionally followed by one `<|action_sep|>` or
//!   `<|trace_end|>`: the model may write the separator it was trained to
//!   write next, after which the grammar is complete and the engine forces
//!   the end of the sequence. [`crate::text::parse_state`] ignores that
//!   separator.
//! - The grammars accept what the printer writes; the parser is more lenient
//!   (whitespace between parts). Inside a locals object, spaces around `:`
//!   and `,` and inside the braces are optional.
//! - Keys are Python identifiers (ASCII, or any non-ASCII character, which
//!   Python allows in names) of at most 64 characters, or a comprehension's
//!   implicit `.0`; a key `".."` must have the value `".."`. Values are JSON
//!   strings without raw control characters, of at most 256 characters
//!   inside the quotes (the tracer's reprs are bounded well below that). The
//!   bounds keep a model from writing one name or value forever.
//! - With a source, the source text of a state can only be one of the
//!   source's distinct non-blank lines, written exactly as in the file
//!   (indentation included, as the printer writes `src`), so the model can
//!   only name real lines. A source without any non-blank line falls back to
//!   any one-line text.

use crate::locate::enclosing_function;
use crate::source::Source;
use crate::state::source_lines;
use crate::text::resolve_breakpoint;
use crate::text::{
    ACTION_SEP, ARG_SEP, BREAKPOINT, CONTINUE, FRAME_SEP, INV_STEP_CALL, INV_STEP_INTO,
    INV_STEP_OVER, STEP_INTO, STEP_OVER, STEP_RETURN, TRACE_CONTEXT_START, TRACE_END,
};
use crate::trajectory::{TextAction, TextEvent, TextState};

/// The rules and terminals of a locals object and a JSON string value.
const VALUES: &str = r#"locals: "{" SP? (pair (SP? "," SP? pair)*)? SP? "}"
pair: DELTA SP? ":" SP? DELTA
    | NAME SP? ":" SP? STRING
DELTA: "\"..\""
NAME: /"(\.[0-9]{1,3}|([A-Za-z_]|[^\x00-\x7f])([A-Za-z0-9_]|[^\x00-\x7f]){0,63})"/
STRING: /"([^"\\\x00-\x1f]|\\["\\\/bfnrt]|\\u[0-9a-fA-F]{4}){0,256}"/
SP: / +/
"#;

/// Any one line of source text.
const ANY_SRC: &str = r"SRC: /[^\r\n]*/";

/// The grammar of one state as the model writes it after `<|frame_sep|>`:
/// forward states (call, line, return, exception, the three exits) or, with
/// `inverse`, the inverse ones (call, line, line-call, return, exception and
/// `<|inv_exit_entry|>`). With a `source`, the state's source text must be one
/// of its lines.
pub fn state_grammar(source: Option<&str>, inverse: bool) -> String {
    state_grammar_over(
        source.map(|source| distinct_lines(source_lines(source))),
        inverse,
    )
}

/// [`state_grammar`] with the source's distinct lines already read.
fn state_grammar_over(lines: Option<Vec<&str>>, inverse: bool) -> String {
    let src = src_terminal(lines);
    if inverse {
        one_state_grammar(
            "One inverse state of the neural debugger's text language.",
            INVERSE_STATES,
            src,
        )
    } else {
        one_state_grammar(
            "One forward state of the neural debugger's text language.",
            FORWARD_STATES,
            src,
        )
    }
}

/// A grammar of one state: `states` (the `state` rule and its kinds), the
/// values and the `src` terminal, optionally followed by the separator the
/// model writes next.
fn one_state_grammar(comment: &str, states: &str, src: String) -> String {
    let mut grammar = format!("// {comment}\n");
    grammar.push_str(&format!(
        "start: state end?\nend: {ACTION_SEP} | {TRACE_END}\n"
    ));
    grammar.push_str(states);
    grammar.push_str(VALUES);
    grammar.push_str(&src);
    grammar.push('\n');
    grammar
}

/// The grammar of the state after `action` from `current` (the state the
/// question is asked at): [`state_grammar`], narrowed to the stops pdb can
/// make for it. A breakpoint (`tbreak L`, `continue`) stops only at a `line`
/// event on its own line, at any depth, or at the run's exit, so the answer
/// is one of those, on the line the breakpoint names
/// ([`resolve_breakpoint`]); the model still writes the locals, or which
/// exit. `inv_step_call` goes back to the call of the function `current`
/// is in: an inverse call state on that function's `def` line (on the
/// `def` line of each function holding a line with `current`'s text, when
/// several do); the model writes the arguments. Every other action keeps
/// the whole forward or inverse grammar (`step_return` from a `return` stop
/// or in a generator can stop anywhere).
pub fn answer_grammar(
    source: Option<&Source>,
    action: &TextAction,
    current: Option<&TextState>,
) -> String {
    match action {
        TextAction::Breakpoint { src, occurrence } => breakpoint_grammar(source, src, *occurrence),
        TextAction::InvStepCall => inv_step_call_grammar(source, current),
        _ => source_state_grammar(source, action.is_inverse()),
    }
}

/// [`state_grammar`] of a source read once.
fn source_state_grammar(source: Option<&Source>, inverse: bool) -> String {
    state_grammar_over(source.map(|source| distinct_lines(source.lines())), inverse)
}

fn breakpoint_grammar(source: Option<&Source>, src: &str, occurrence: Option<u32>) -> String {
    let line = source.and_then(|source| {
        let number = resolve_breakpoint(source, src, occurrence)?;
        source.get_line(number)
    });
    let src = match line {
        Some(line) => src_alternatives(&[line]),
        // A breakpoint on no line of the source (or no source): any line,
        // as in [`state_grammar`].
        None => src_terminal(source.map(|source| distinct_lines(source.lines()))),
    };
    one_state_grammar(
        "The state after a breakpoint: a stop on its line, or the exit.",
        BREAKPOINT_STATES,
        src,
    )
}

/// The answer to `inv_step_call` from `current`: the call of its function.
/// Without a source, from a call or an exit (which are in no function's
/// body), or from text that is no line of a function, the whole inverse
/// grammar.
fn inv_step_call_grammar(source: Option<&Source>, current: Option<&TextState>) -> String {
    let defs = match (source, current) {
        (Some(source), Some(state)) if state.event != TextEvent::Call => {
            calls_of_line(source, &state.src)
        }
        _ => Vec::new(),
    };
    if defs.is_empty() {
        return source_state_grammar(source, true);
    }
    one_state_grammar(
        "The state after inv_step_call: the call of the current function.",
        INV_CALL_STATES,
        src_alternatives(&defs),
    )
}

/// The `def` lines of the functions whose bodies hold a line reading `src`
/// exactly (the innermost function of each such line), in file order.
fn calls_of_line<'a>(source: &'a Source, src: &str) -> Vec<&'a str> {
    if src.trim().is_empty() {
        return Vec::new();
    }
    let spans = source.spans();
    let mut defs: Vec<&str> = Vec::new();
    for (index, line) in source.lines().enumerate() {
        if line != src {
            continue;
        }
        let Some(function) = enclosing_function(spans, index as u32 + 1) else {
            continue;
        };
        if let Some(def) = source.get_line(spans[function].def_line) {
            if !defs.contains(&def) {
                defs.push(def);
            }
        }
    }
    defs
}

/// The grammar for a model whose tokenizer has no tokens for the special
/// markers: every bare token reference `<|name|>` becomes the quoted literal
/// `"<|name|>"`, matched as ordinary text. (No terminal or regex of these
/// grammars contains `<|`.)
pub fn special_tokens_as_text(grammar: &str) -> String {
    #[derive(PartialEq)]
    enum Scan {
        Rules,
        Literal,
        Regex,
        Comment,
    }
    let mut out = String::with_capacity(grammar.len() + 256);
    let mut scan = Scan::Rules;
    let mut index = 0;
    let bytes = grammar.as_bytes();
    while index < grammar.len() {
        let rest = &grammar[index..];
        let c = rest.chars().next().unwrap_or('\0');
        match scan {
            Scan::Rules => {
                if let Some(token) = crate::text::SPECIAL_TOKENS
                    .iter()
                    .find(|token| rest.starts_with(**token))
                {
                    out.push('"');
                    out.push_str(token);
                    out.push('"');
                    index += token.len();
                    continue;
                }
                if rest.starts_with("//") {
                    scan = Scan::Comment;
                } else if c == '"' {
                    scan = Scan::Literal;
                } else if c == '/' {
                    scan = Scan::Regex;
                }
            }
            Scan::Literal | Scan::Regex => {
                let close = if scan == Scan::Literal { b'"' } else { b'/' };
                if c == '\\' && index + 1 < bytes.len() {
                    let next = rest[1..].chars().next().map_or(1, char::len_utf8);
                    out.push_str(&rest[..1 + next]);
                    index += 1 + next;
                    continue;
                }
                if bytes[index] == close {
                    scan = Scan::Rules;
                }
            }
            Scan::Comment => {
                if c == '\n' {
                    scan = Scan::Rules;
                }
            }
        }
        out.push(c);
        index += c.len_utf8();
    }
    out
}

/// The rules and terminals of one Python literal as `repr()` writes it
/// (and as a code model writes the right side of `assert f(x) == ...`):
/// `None`, booleans, numbers, strings and bytes in either quote, lists,
/// tuples, sets (with `set()`), dicts, nested. Strings are bounded (512
/// characters inside the quotes) so a model cannot write one forever; the
/// answer's token limit bounds the nesting.
const PYTHON_LITERAL: &str = r#"value: atom | list | tuple | dict | set
atom: NUMBER | STR | "None" | "True" | "False" | "set()" | "float('inf')" | "float('-inf')" | "float('nan')"
list: "[" SP? (value (SP? "," SP? value)* (SP? ",")?)? SP? "]"
tuple: "(" SP? ")" | "(" SP? value SP? "," SP? ")" | "(" SP? value (SP? "," SP? value)+ (SP? ",")? SP? ")"
set: "{" SP? value (SP? "," SP? value)* (SP? ",")? SP? "}"
dict: "{" SP? (pair (SP? "," SP? pair)* (SP? ",")?)? SP? "}"
pair: value SP? ":" SP? value
NUMBER: /-?([0-9]+(\.[0-9]*)?|\.[0-9]+)([eE][-+]?[0-9]+)?j?/
STR: /b?'([^'\\\r\n]|\\[^\r\n]){0,512}'/ | /b?"([^"\\\r\n]|\\[^\r\n]){0,512}"/
SP: / +/
"#;

/// The answer to "what does `f(ARGS)` return", asked as an assertion a code
/// model completes (`assert f(ARGS) ==`, the prompt's last text): the space
/// after `==` (a BPE tokenizer writes it with the value), one Python
/// literal, then the end of the line.
pub fn literal_grammar() -> String {
    format!(
        "// One Python literal after a space, ended by a newline.\n\
         start: SP? value \"\\n\"\n{PYTHON_LITERAL}"
    )
}

/// The answer to "which arguments make `f` return V", asked as an assertion
/// a code model completes after `assert f(`: positional arguments, each a
/// Python literal, then the call's closing parenthesis.
pub fn arguments_grammar() -> String {
    format!(
        "// Literal arguments of a call, ended by its closing parenthesis.\n\
         start: (value (SP? \",\" SP? value)*)? \")\"\n{PYTHON_LITERAL}"
    )
}

/// The whole language, forward and inverse, for validation and
/// documentation: the source, the start state, then actions and states, and
/// an optional `<|trace_end|>`. Source text is any one line.
pub fn trajectory_grammar() -> String {
    let mut grammar = String::new();
    grammar.push_str("// The neural debugger's text language: one trajectory.\n");
    grammar.push_str(&format!(
        "start: {TRACE_CONTEXT_START} SOURCE {FRAME_SEP} state step* {TRACE_END}?\n"
    ));
    grammar.push_str(&format!(
        "step: {ACTION_SEP} action NL? {FRAME_SEP} state\n"
    ));
    grammar.push_str("state: forward_state | inverse_state\n");
    grammar.push_str(&format!(
        "action: {STEP_INTO} | {STEP_OVER} | {STEP_RETURN} | {CONTINUE}\n    \
         | {INV_STEP_INTO} | {INV_STEP_OVER} | {INV_STEP_CALL}\n    \
         | {BREAKPOINT} SRC ({ARG_SEP} OCCURRENCE)?\n"
    ));
    grammar.push_str(&FORWARD_STATES.replacen("state:", "forward_state:", 1));
    grammar.push_str(&INVERSE_STATES.replacen("state:", "inverse_state:", 1));
    grammar.push_str(VALUES);
    grammar.push_str("SOURCE: /(?s:.)*/\n");
    grammar.push_str("OCCURRENCE: /[0-9]+/\n");
    grammar.push_str("NL: \"\\n\"\n");
    grammar.push_str(ANY_SRC);
    grammar.push('\n');
    grammar
}

const FORWARD_STATES: &str = concat!(
    "state: call_state | line_state | return_state | exception_state | exit_state\n",
    "call_state: <|call_sep|> <|src_sep|> SRC <|arg_sep|> locals\n",
    "line_state: <|line_sep|> <|arg_sep|> locals <|src_sep|> SRC\n",
    "return_state: <|return_sep|> <|src_sep|> SRC <|arg_sep|> STRING\n",
    "exception_state: <|exception_sep|> <|src_sep|> SRC <|arg_sep|> STRING\n",
    "exit_state: <|exit_normal|> | <|exit_error|> | <|exit_never|>\n",
);

/// The stops of a breakpoint: its line (`SRC` is narrowed to it) or the
/// exit. The rules are [`FORWARD_STATES`]' own.
const BREAKPOINT_STATES: &str = concat!(
    "state: line_state | exit_state\n",
    "line_state: <|line_sep|> <|arg_sep|> locals <|src_sep|> SRC\n",
    "exit_state: <|exit_normal|> | <|exit_error|> | <|exit_never|>\n",
);

/// The stop of `inv_step_call`: the current function's call (`SRC` is
/// narrowed to its `def` line). The rule is [`INVERSE_STATES`]' own.
const INV_CALL_STATES: &str = concat!(
    "state: inv_call_state\n",
    "inv_call_state: <|inv_call_sep|> <|src_sep|> SRC <|arg_sep|> locals\n",
);

const INVERSE_STATES: &str = concat!(
    "state: inv_call_state | inv_line_state | inv_line_call_state | inv_return_state\n",
    "    | inv_exception_state | <|inv_exit_entry|>\n",
    "inv_call_state: <|inv_call_sep|> <|src_sep|> SRC <|arg_sep|> locals\n",
    "inv_line_state: <|inv_line_sep|> <|src_sep|> SRC <|arg_sep|> locals\n",
    "inv_line_call_state: <|inv_line_call_sep|> <|src_sep|> SRC <|arg_sep|> locals\n",
    "inv_return_state: <|inv_return_sep|> <|src_sep|> SRC <|arg_sep|> STRING\n",
    "inv_exception_state: <|inv_exception_sep|> <|src_sep|> SRC <|arg_sep|> STRING\n",
);

/// The `SRC` terminal: the source's distinct non-blank lines, or any line.
fn src_terminal(lines: Option<Vec<&str>>) -> String {
    let lines = lines.unwrap_or_default();
    if lines.is_empty() {
        return ANY_SRC.to_string();
    }
    src_alternatives(&lines)
}

/// The distinct non-blank lines of a source's `lines`, in order, as written.
fn distinct_lines<'a>(lines: impl Iterator<Item = &'a str>) -> Vec<&'a str> {
    let mut distinct: Vec<&str> = Vec::new();
    for line in lines {
        if !line.trim().is_empty() && !distinct.contains(&line) {
            distinct.push(line);
        }
    }
    distinct
}

/// The `SRC` terminal as these lines, exactly.
fn src_alternatives(lines: &[&str]) -> String {
    let alternatives: Vec<String> = lines.iter().map(|line| lark_string(line)).collect();
    format!("SRC: {}", alternatives.join("\n    | "))
}

/// `text` as a Lark string literal: double quotes, with `"`, `\` and control
/// characters escaped.
fn lark_string(text: &str) -> String {
    let mut literal = String::with_capacity(text.len() + 2);
    literal.push('"');
    for c in text.chars() {
        match c {
            '"' => literal.push_str("\\\""),
            '\\' => literal.push_str("\\\\"),
            '\n' => literal.push_str("\\n"),
            '\r' => literal.push_str("\\r"),
            '\t' => literal.push_str("\\t"),
            c if (c as u32) < 0x20 || c == '\u{7f}' => {
                literal.push_str(&format!("\\u{:04x}", c as u32))
            }
            c => literal.push(c),
        }
    }
    literal.push('"');
    literal
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::text::{
        CALL_SEP, EXCEPTION_SEP, EXIT_ERROR, EXIT_NEVER, EXIT_NORMAL, INV_CALL_SEP,
        INV_EXCEPTION_SEP, INV_EXIT_ENTRY, INV_LINE_CALL_SEP, INV_LINE_SEP, INV_RETURN_SEP,
        LINE_SEP, RETURN_SEP, SPECIAL_TOKENS,
    };

    /// The special tokens a grammar refers to.
    fn tokens_in(grammar: &str) -> Vec<&str> {
        let mut found = Vec::new();
        let mut rest = grammar;
        while let Some(at) = rest.find("<|") {
            let end = rest[at..].find("|>").map_or(rest.len(), |end| at + end + 2);
            found.push(&rest[at..end]);
            rest = &rest[end..];
        }
        found
    }

    #[test]
    fn grammars_only_name_the_language_tokens() {
        for grammar in [
            state_grammar(None, false),
            state_grammar(None, true),
            state_grammar(Some("def f():\n    return 1\n"), false),
            trajectory_grammar(),
        ] {
            for token in tokens_in(&grammar) {
                assert!(SPECIAL_TOKENS.contains(&token), "{token} in {grammar}");
            }
        }
    }

    #[test]
    fn forward_and_inverse_grammars_name_their_own_events() {
        let forward = state_grammar(None, false);
        let inverse = state_grammar(None, true);
        for token in [
            LINE_SEP,
            RETURN_SEP,
            EXCEPTION_SEP,
            EXIT_NORMAL,
            EXIT_ERROR,
            EXIT_NEVER,
        ] {
            assert!(
                forward.contains(token) && !inverse.contains(token),
                "{token}"
            );
        }
        for token in [
            INV_CALL_SEP,
            INV_LINE_SEP,
            INV_LINE_CALL_SEP,
            INV_RETURN_SEP,
            INV_EXCEPTION_SEP,
            INV_EXIT_ENTRY,
        ] {
            assert!(
                inverse.contains(token) && !forward.contains(token),
                "{token}"
            );
        }
        // `<|frame_sep|>` is already in the prompt.
        assert!(!forward.contains(FRAME_SEP) && !inverse.contains(FRAME_SEP));
    }

    #[test]
    fn source_lines_become_escaped_distinct_literals() {
        let source =
            "def f(s):\r\n    return \"a\\\" + s\n\n    return \"a\\\" + s\n\tx = '\u{1}é'\n";
        let grammar = state_grammar(Some(source), false);
        let src = grammar
            .lines()
            .skip_while(|line| !line.starts_with("SRC:"))
            .collect::<Vec<_>>();
        assert_eq!(
            src,
            [
                r#"SRC: "def f(s):""#,
                r#"    | "    return \"a\\\" + s""#,
                r#"    | "\tx = '\u0001é'""#,
            ]
        );
        assert!(state_grammar(Some(" \n\n"), false).contains(ANY_SRC));
    }

    #[test]
    fn a_breakpoint_answers_on_its_own_lines_or_at_the_exit() {
        let text = "def f(xs):\n    for x in xs:\n        if x:\n            continue\n        if xs:\n                continue\n    return 1\n";
        let source = &Source::new(text, Vec::new());
        let action = TextAction::Breakpoint {
            src: "continue".to_string(),
            occurrence: Some(2),
        };
        let grammar = answer_grammar(Some(source), &action, None);
        let src: Vec<&str> = grammar
            .lines()
            .skip_while(|line| !line.starts_with("SRC:"))
            .collect();
        // The line the breakpoint names (its second `continue`), as written.
        assert_eq!(src, [r#"SRC: "                continue""#]);
        assert!(
            grammar.contains("state: line_state | exit_state\n"),
            "{grammar}"
        );
        for absent in [CALL_SEP, RETURN_SEP, EXCEPTION_SEP, INV_LINE_SEP] {
            assert!(!grammar.contains(absent), "{absent} in {grammar}");
        }
        // Text that is no line of the source: any of its lines, as in the
        // state grammar.
        let elsewhere = TextAction::Breakpoint {
            src: "print(x)".to_string(),
            occurrence: None,
        };
        let grammar = answer_grammar(Some(source), &elsewhere, None);
        assert!(
            grammar.ends_with(&format!(
                "{}\n",
                src_terminal(Some(distinct_lines(source_lines(text))))
            )),
            "{grammar}"
        );
        assert!(grammar.contains(r#"    | "    return 1""#), "{grammar}");
        // Other actions keep the whole grammars.
        assert_eq!(
            answer_grammar(Some(source), &TextAction::StepReturn, None),
            state_grammar(Some(text), false)
        );
        assert_eq!(
            answer_grammar(Some(source), &TextAction::InvStepOver, None),
            state_grammar(Some(text), true)
        );
    }

    #[test]
    fn inv_step_call_answers_with_the_call_of_the_current_function() {
        let text = "def evens(nums):\n    result = []\n    for n in nums:\n        if n % 2 == 0:\n            result.append(n)\n    return result\n\n\n@cache\ndef odds(nums):\n    result = [n for n in nums if n % 2]\n    return result\n\n\ndef shout(words):\n    def up(w):\n        return w.upper()\n    return ' '.join(up(w) for w in words)\n";
        // The source's functions, as the Python reader finds them.
        let span = crate::locate::FunctionSpan::one_line_header;
        let functions = vec![
            span("evens", 1, 1, 6, 0),
            span("odds", 9, 10, 12, 0),
            span("shout", 15, 15, 18, 0),
            span("up", 16, 16, 17, 4),
        ];
        let source = &Source::new(text, functions);
        let at = |event, src: &str| TextState {
            event,
            inverse: true,
            src: src.to_string(),
            locals: Vec::new(),
            value: None,
        };
        let src_of = |grammar: &str| -> Vec<String> {
            grammar
                .lines()
                .skip_while(|line| !line.starts_with("SRC:"))
                .map(str::to_string)
                .collect()
        };
        let call = |current: &TextState| {
            answer_grammar(Some(source), &TextAction::InvStepCall, Some(current))
        };
        // From a line of one function: that function's call, nothing else.
        let grammar = call(&at(TextEvent::Line, "        if n % 2 == 0:"));
        assert_eq!(src_of(&grammar), [r#"SRC: "def evens(nums):""#]);
        assert!(grammar.contains("state: inv_call_state\n"), "{grammar}");
        for absent in [INV_LINE_SEP, INV_RETURN_SEP, INV_EXIT_ENTRY, CALL_SEP] {
            assert!(!grammar.contains(absent), "{absent} in {grammar}");
        }
        // The same text in two functions: either call (the `def` line, not
        // the decorator); in a nested function, the nested one's.
        assert_eq!(
            src_of(&call(&at(TextEvent::Return, "    return result"))),
            [r#"SRC: "def evens(nums):""#, r#"    | "def odds(nums):""#]
        );
        assert_eq!(
            src_of(&call(&at(TextEvent::Return, "        return w.upper()"))),
            [r#"SRC: "    def up(w):""#]
        );
        // From a call, an exit, text of no function, or without a state:
        // the whole inverse grammar.
        let whole = state_grammar(Some(text), true);
        for current in [
            Some(at(TextEvent::Call, "def evens(nums):")),
            Some(at(TextEvent::ExitNormal, "")),
            Some(at(TextEvent::Line, "print(evens([1]))")),
            None,
        ] {
            assert_eq!(
                answer_grammar(Some(source), &TextAction::InvStepCall, current.as_ref()),
                whole
            );
        }
    }

    #[test]
    fn special_tokens_become_literals_outside_strings_and_regexes() {
        let source = "def f(s):\n    return s + \"<|frame_sep|>\"\n";
        let grammar = state_grammar(Some(source), false);
        let text = special_tokens_as_text(&grammar);
        assert!(
            text.contains(r#"call_state: "<|call_sep|>" "<|src_sep|>" SRC "<|arg_sep|>" locals"#),
            "{text}"
        );
        assert!(!text.contains(" <|"), "{text}");
        // The source line's own text stays inside its literal, unquoted.
        assert!(text.contains(r#"return s + \"<|frame_sep|>\"""#), "{text}");
        assert_eq!(text.matches("\"<|frame_sep|>\"").count(), 0, "{text}");
    }
}

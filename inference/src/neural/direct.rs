//! Debugger questions asked in the form a code model has read a million
//! times: an assertion to complete. From the entry call, `step_return` is
//! "what does `f(ARGS)` return", asked as `assert f(ARGS) == `; from the
//! entry function's return, `inv_step_call` is "which arguments give this
//! value", asked as `assert f(` ... `) == VALUE`. The answer is constrained
//! to Python literals ([`ndb_grammar::lark::literal_grammar`],
//! [`ndb_grammar::lark::arguments_grammar`]) and put back into the state the
//! debugger language would have written, so every front end sees the same
//! kind of answer whichever form asked.
//!
//! Which form asks which action is the model's [`Forms`]: a pretrained code
//! model that never learnt the debugger language answers these two jumps far
//! better as assertions (inference/default-model/README.md).

use ndb_grammar::locate::{enclosing_function, return_line};

use ndb_grammar::{Action, Source, TextEvent};

use crate::choice::UnknownChoice;
use crate::debugger::Session;
use crate::suggest::value::parse_literal;

/// How one action is asked.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum Form {
    /// The debugger's text language (with a demonstration for a model
    /// that was never trained on it).
    #[default]
    Language,
    /// An assertion to complete, where the question allows it (the entry
    /// call's `step_return`, the entry return's `inv_step_call`); the text
    /// language elsewhere.
    Assertion,
    /// Both, where the question allows it: the answer the model gave the
    /// higher probability wins (the two forms fail on different questions).
    Best,
}

impl Form {
    pub fn name(self) -> &'static str {
        match self {
            Form::Language => "language",
            Form::Assertion => "assertion",
            Form::Best => "best",
        }
    }
}

/// Why a forms setting ([`Forms::parse`]) was refused.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum FormsError {
    #[error(transparent)]
    Form(UnknownChoice),
    #[error("`{action}` has no assertion form; only step_return and inv_step_call")]
    NoAssertionForm { action: String },
}

/// The form of each action that has an assertion form.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct Forms {
    pub step_return: Form,
    pub inv_step_call: Form,
}

impl Forms {
    /// The forms a model is asked in when nobody chose: a model whose
    /// tokenizer carries the debugger's tokens was trained on the text
    /// language and is asked in it; a pretrained model without them is a
    /// code model, asked the two jumps as assertions.
    pub fn for_model(special_tokens: super::SpecialTokenMode) -> Forms {
        match special_tokens {
            super::SpecialTokenMode::Tokens => Forms::default(),
            super::SpecialTokenMode::Text => Forms::ASSERTIONS,
        }
    }

    /// Both jumps asked as assertions.
    pub const ASSERTIONS: Forms = Forms {
        step_return: Form::Assertion,
        inv_step_call: Form::Assertion,
    };

    /// Parses `step_return=assertion,inv_step_call=language` (either part
    /// may be left out; `language` and `assertion` alone set both).
    pub fn parse(text: &str) -> Result<Forms, FormsError> {
        let form = |name: &str| match name {
            "language" => Ok(Form::Language),
            "assertion" => Ok(Form::Assertion),
            "best" => Ok(Form::Best),
            other => Err(FormsError::Form(UnknownChoice::new(
                "form",
                other,
                "language, assertion, best",
            ))),
        };
        let mut forms = Forms::default();
        for part in text.split(',').map(str::trim).filter(|p| !p.is_empty()) {
            match part.split_once('=') {
                Some(("step_return", value)) => forms.step_return = form(value.trim())?,
                Some(("inv_step_call", value)) => forms.inv_step_call = form(value.trim())?,
                Some((action, _)) => {
                    return Err(FormsError::NoAssertionForm {
                        action: action.to_string(),
                    })
                }
                None => {
                    let both = form(part)?;
                    forms = Forms {
                        step_return: both,
                        inv_step_call: both,
                    };
                }
            }
        }
        Ok(forms)
    }
}

/// Shown before every output question: two worked assertions of the
/// project's own (no benchmark problem), in the layout code models have
/// seen in evaluation harnesses.
const OUTPUT_SHOTS: &str = "[PYTHON]
def f(words):
    return [w.upper() for w in words if len(w) > 2]
assert f(['ab', 'cat', 'dog']) == ??
[/PYTHON]
[ANSWER]
assert f(['ab', 'cat', 'dog']) == ['CAT', 'DOG']
[/ANSWER]

[PYTHON]
def f(n, k):
    total = 0
    for i in range(n):
        total += i * k
    return total
assert f(4, 3) == ??
[/PYTHON]
[ANSWER]
assert f(4, 3) == 18
[/ANSWER]

";

/// Shown before every input question, as [`OUTPUT_SHOTS`].
const INPUT_SHOTS: &str = "[PYTHON]
def f(text):
    return text[::-1] + '!'
assert f(??) == 'olleh!'
[/PYTHON]
[ANSWER]
assert f('hello') == 'olleh!'
[/ANSWER]

[PYTHON]
def f(nums, x):
    return [n + x for n in nums]
assert f(??) == [5, 7]
[/PYTHON]
[ANSWER]
assert f([2, 4], 3) == [5, 7]
[/ANSWER]

";

/// A question that has an assertion form.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) enum Question {
    /// What the entry call returns: the answer is a return state on
    /// `return_line`.
    Output { call: String, return_line: u32 },
    /// Which arguments of `function` give `output`: the answer is the
    /// inverse call state on `def_line`.
    Input {
        function: String,
        output: String,
        def_line: u32,
    },
}

impl Question {
    /// The question `action` asks after `session`, when `forms` asks it as
    /// an assertion and it has that form: `step_return` from any stop of
    /// the entry call's own frame before it returns (wherever it stands,
    /// its return value is the entry call's), `inv_step_call` from a
    /// return of a top-level function that starts a session (suggesting
    /// inputs).
    pub(crate) fn of(session: &Session, action: Action, forms: Forms) -> Option<Question> {
        let start = &session.start.text;
        match action {
            Action::StepReturn if forms.step_return != Form::Language => {
                let call = session.entry_call.as_deref()?.trim();
                if start.event != TextEvent::Call || start.inverse || call.is_empty() {
                    return None;
                }
                let in_entry_frame = |state: &crate::debugger::State| {
                    matches!(
                        (&state.view, state.text.event),
                        (
                            Some(ndb_grammar::StateView::Event { depth: 0, .. }),
                            TextEvent::Call | TextEvent::Line
                        )
                    ) && !state.text.inverse
                };
                // Every stop so far in the entry frame, going forward: a
                // step into a callee, an exception or an exit leaves the
                // question to the text language.
                if !session
                    .steps
                    .iter()
                    .all(|step| !step.action.is_inverse() && in_entry_frame(&step.state))
                    || !in_entry_frame(session.current())
                {
                    return None;
                }
                let spans = session.source.spans();
                let line = session_line(session)?;
                let index = spans.iter().position(|span| span.first_line == line)?;
                // A generator's `step_return` stops at its next `yield`, and
                // its call returns a generator: no assertion asks that.
                let span = &spans[index];
                let body = session
                    .source
                    .lines()
                    .skip((span.def_line as usize).saturating_sub(1))
                    .take((span.end_line + 1).saturating_sub(span.def_line) as usize);
                if body.into_iter().any(|text| {
                    text.split(|c: char| !c.is_alphanumeric() && c != '_')
                        .any(|word| word == "yield")
                }) {
                    return None;
                }
                Some(Question::Output {
                    call: call.to_string(),
                    return_line: return_line(&session.source, index),
                })
            }
            Action::InvStepCall if forms.inv_step_call != Form::Language => {
                if !session.steps.is_empty() || start.event != TextEvent::Return {
                    return None;
                }
                let output = start.value.clone()?;
                let spans = session.source.spans();
                let index = enclosing_function(spans, session_line(session)?)?;
                let span = &spans[index];
                if span.indent != 0 {
                    return None;
                }
                Some(Question::Input {
                    function: span.name.clone(),
                    output,
                    def_line: span.def_line,
                })
            }
            _ => None,
        }
    }

    /// The prompt: the worked assertions, the source, the question, and the
    /// start of the answer the model completes. It stops before the space
    /// after `==`: a BPE tokenizer writes that space together with the
    /// value (` ''`, ` [`), and a prompt that ends in it leaves the model
    /// only the tokens that start without one, mostly digits (Qwen2.5-Coder
    /// answered `0` for an empty string 95 times in 100).
    pub(crate) fn prompt(&self, source: &str) -> String {
        let shared = self.shared_prompt(source);
        match self {
            Question::Output { call, .. } => {
                format!("{shared}assert {call} == ??\n[/PYTHON]\n[ANSWER]\nassert {call} ==")
            }
            Question::Input {
                function, output, ..
            } => format!(
                "{shared}assert {function}(??) == {output}\n[/PYTHON]\n[ANSWER]\nassert {function}("
            ),
        }
    }

    /// The start of [`Self::prompt`] every question of this kind about
    /// `source` shares: the worked assertions and the source, up to the
    /// line that asks.
    pub(crate) fn shared_prompt(&self, source: &str) -> String {
        let shots = match self {
            Question::Output { .. } => OUTPUT_SHOTS,
            Question::Input { .. } => INPUT_SHOTS,
        };
        format!("{shots}[PYTHON]\n{}\n", source.trim_end())
    }

    /// The grammar of the answer.
    pub(crate) fn grammar(&self) -> String {
        match self {
            Question::Output { .. } => ndb_grammar::lark::literal_grammar(),
            Question::Input { .. } => ndb_grammar::lark::arguments_grammar(),
        }
    }

    /// How `forms` asks this question.
    pub(crate) fn form(&self, forms: Forms) -> Form {
        match self {
            Question::Output { .. } => forms.step_return,
            Question::Input { .. } => forms.inv_step_call,
        }
    }

    /// The source text of the line the answer's state stops at.
    pub(crate) fn src<'a>(&self, source: &'a Source) -> &'a str {
        let line = match self {
            Question::Output { return_line, .. } => *return_line,
            Question::Input { def_line, .. } => *def_line,
        };
        source.line(line)
    }
}

/// The line of the session's first state.
fn session_line(session: &Session) -> Option<u32> {
    match &session.start.view {
        Some(ndb_grammar::StateView::Event { line, .. }) => Some(*line),
        _ => None,
    }
}

/// The value an output answer names, as `repr()` would print it (the
/// model may write `"a"` where Python prints `'a'`); `None` when it is no
/// Python literal.
pub(crate) fn output_value(answer: &str) -> Option<String> {
    parse_literal(answer.trim())
        .ok()
        .map(|value| value.to_python())
}

/// The argument text an input answer names (without the closing
/// parenthesis), each argument as `repr()` prints it; `None` when it is
/// not literal arguments.
pub(crate) fn input_arguments(answer: &str) -> Option<String> {
    let inside = answer.trim().strip_suffix(')')?;
    let values = crate::suggest::value::parse_arguments(inside).ok()?;
    Some(
        values
            .iter()
            .map(|value| value.to_python())
            .collect::<Vec<_>>()
            .join(", "),
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::debugger::State;
    use ndb_grammar::{EventKind, StateView, TextState};

    const SOURCE: &str =
        "def f(xs):\n    total = 0\n    for x in xs:\n        total += x\n    return total\n";

    fn session(event: TextEvent, line: u32, value: Option<&str>, call: Option<&str>) -> Session {
        Session {
            source: crate::python::read_source(SOURCE),
            entry_call: call.map(str::to_string),
            start: State {
                text: TextState {
                    event,
                    inverse: event == TextEvent::Return,
                    src: String::new(),
                    locals: Vec::new(),
                    value: value.map(str::to_string),
                },
                view: Some(StateView::Event {
                    kind: if event == TextEvent::Call {
                        EventKind::Call
                    } else {
                        EventKind::Return
                    },
                    line,
                    depth: 0,
                    locals: None,
                    value: None,
                }),
                confidence: None,
                note: None,
            },
            steps: Vec::new(),
        }
    }

    #[test]
    fn the_entry_calls_return_is_asked_as_an_assertion() {
        let at_call = session(TextEvent::Call, 1, None, Some("f([1, 2])"));
        let question = Question::of(&at_call, Action::StepReturn, Forms::ASSERTIONS).unwrap();
        assert_eq!(
            question,
            Question::Output {
                call: "f([1, 2])".into(),
                return_line: 5
            }
        );
        assert!(question.prompt(SOURCE).ends_with(
            "    return total\nassert f([1, 2]) == ??\n[/PYTHON]\n[ANSWER]\nassert f([1, 2]) =="
        ));
        assert_eq!(
            question.src(&crate::python::read_source(SOURCE)),
            "    return total"
        );
        // Later stops of the entry frame ask the same question; a stop in
        // a callee does not.
        let mut later = at_call.clone();
        let mut line = at_call.start.clone();
        line.text.event = TextEvent::Line;
        line.view = Some(StateView::Event {
            kind: EventKind::Line,
            line: 3,
            depth: 0,
            locals: None,
            value: None,
        });
        later.steps.push(crate::debugger::Step {
            action: Action::StepOver,
            state: line.clone(),
        });
        assert_eq!(
            Question::of(&later, Action::StepReturn, Forms::ASSERTIONS),
            Some(question.clone())
        );
        line.view = Some(StateView::Event {
            kind: EventKind::Line,
            line: 3,
            depth: 1,
            locals: None,
            value: None,
        });
        later.steps.push(crate::debugger::Step {
            action: Action::StepInto,
            state: line,
        });
        assert_eq!(
            Question::of(&later, Action::StepReturn, Forms::ASSERTIONS),
            None
        );
        // A generator's step_return stops at a yield: the text language.
        let generator = Session {
            source: crate::python::read_source("def f(xs):\n    for x in xs:\n        yield x\n"),
            ..at_call.clone()
        };
        assert_eq!(
            Question::of(&generator, Action::StepReturn, Forms::ASSERTIONS),
            None
        );
        // Other actions, other states and the language form keep the text
        // language.
        assert_eq!(
            Question::of(&at_call, Action::StepOver, Forms::ASSERTIONS),
            None
        );
        assert_eq!(
            Question::of(&at_call, Action::StepReturn, Forms::default()),
            None
        );
        let no_call = session(TextEvent::Call, 1, None, None);
        assert_eq!(
            Question::of(&no_call, Action::StepReturn, Forms::ASSERTIONS),
            None
        );
    }

    #[test]
    fn the_inputs_of_a_return_are_asked_as_an_assertion() {
        let at_return = session(TextEvent::Return, 5, Some("3"), None);
        let question = Question::of(&at_return, Action::InvStepCall, Forms::ASSERTIONS).unwrap();
        assert!(question
            .prompt(SOURCE)
            .ends_with("assert f(??) == 3\n[/PYTHON]\n[ANSWER]\nassert f("));
        assert_eq!(
            question.src(&crate::python::read_source(SOURCE)),
            "def f(xs):"
        );
    }

    #[test]
    fn answers_are_read_as_python_prints_them() {
        assert_eq!(output_value("\"a\"\n").as_deref(), Some("'a'"));
        assert_eq!(output_value("[1,2]").as_deref(), Some("[1, 2]"));
        assert_eq!(output_value("7.0").as_deref(), Some("7.0"));
        assert_eq!(output_value("f(3)"), None);
        assert_eq!(
            input_arguments("[3, 4], \"x\")").as_deref(),
            Some("[3, 4], 'x'")
        );
        assert_eq!(input_arguments(")").as_deref(), Some(""));
        assert_eq!(input_arguments("[3, 4]"), None);
    }

    #[test]
    fn forms_parse_per_action() {
        assert_eq!(Forms::parse("assertion").unwrap(), Forms::ASSERTIONS);
        assert_eq!(
            Forms::parse("step_return=assertion").unwrap(),
            Forms {
                step_return: Form::Assertion,
                inv_step_call: Form::Language
            }
        );
        assert!(Forms::parse("step_over=assertion").is_err());
        assert!(Forms::parse("prose").is_err());
    }
}

//! ndb's own protocol on top of LSP, in one place and typed: the
//! `workspace/executeCommand` commands with their arguments and results, the
//! `ndb/setBreakpoints` notification, and the `data` the server puts on inlay
//! hints and code lenses to resolve them later. Client authors read
//! `docs/lsp-protocol-extensions.md`; this file is what it describes.
//!
//! Everything here is plain data (serde), no I/O: the pure layer (`ide.rs`)
//! builds commands, the handlers parse them and answer with the results.

use serde::de::DeserializeOwned;
use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::engine::{Backend, Key, Question, SuggestPlan};
use crate::ide::LensKind;
use crate::settings::{InsertStyle, OutputMode};

// --- Commands -------------------------------------------------------------------

pub const TOGGLE_BREAKPOINT: &str = "ndb.toggleBreakpoint";
pub const CHOOSE_ENTRY_CALL: &str = "ndb.chooseEntryCall";
pub const PREDICT: &str = "ndb.predict";
pub const SUGGEST_INPUTS: &str = "ndb.suggestInputs";
pub const INSERT_SUGGESTION: &str = "ndb.insertSuggestion";
pub const CHECK_BY_RUNNING: &str = "ndb.checkByRunning";

/// Every command the server executes (its `executeCommandProvider`).
pub const COMMANDS: &[&str] = &[
    TOGGLE_BREAKPOINT,
    CHOOSE_ENTRY_CALL,
    PREDICT,
    SUGGEST_INPUTS,
    INSERT_SUGGESTION,
    CHECK_BY_RUNNING,
];

/// A command with its one argument object.
#[derive(Clone, Debug, PartialEq)]
pub enum Command {
    /// Adds or removes the neural breakpoint on a line.
    ToggleBreakpoint(LineArgument),
    /// Sets the function's active entry call (given, or picked in the editor).
    ChooseEntryCall(ChooseEntryCall),
    /// Predicts the function's return value for its active entry call.
    Predict(FunctionArgument),
    SuggestInputs(SuggestInputs),
    /// Writes one suggestion into the code (a doctest, a pytest test or a
    /// `# ndb:` comment), through `workspace/applyEdit`.
    InsertSuggestion(InsertSuggestion),
    /// Runs the active entry call (sandboxed) and compares it with the
    /// prediction.
    CheckByRunning(FunctionArgument),
}

/// A line of a document (0-based).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct LineArgument {
    pub uri: String,
    pub line: u32,
}

/// A function of a document: by qualified name, else the one holding a
/// 0-based line.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct FunctionArgument {
    pub uri: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub function: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub line: Option<u32>,
}

impl FunctionArgument {
    pub fn named(uri: &str, function: &str) -> FunctionArgument {
        FunctionArgument {
            uri: uri.to_string(),
            function: Some(function.to_string()),
            line: None,
        }
    }
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ChooseEntryCall {
    #[serde(flatten)]
    pub target: FunctionArgument,
    /// The call to make active; without it the user picks one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub entry_call: Option<String>,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct SuggestInputs {
    #[serde(flatten)]
    pub target: FunctionArgument,
    /// The output the inputs should give (repr text); any output without.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub output: Option<String>,
    /// Offer a picker and insert the chosen suggestion (default true).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub pick: Option<bool>,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct InsertSuggestion {
    #[serde(flatten)]
    pub target: FunctionArgument,
    /// The argument text, such as `1, [2, 3]`.
    pub input: String,
    /// The output the test expects; predicted when absent.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub output: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub votes: Option<u64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub samples: Option<u64>,
    /// How it is written; the `suggestions.insertAs` setting when absent.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub style: Option<InsertStyle>,
}

impl Command {
    /// The command `name` with the first of its `arguments`, or why it is
    /// not one of ours or its argument does not fit.
    pub fn parse(name: &str, arguments: Vec<Value>) -> Result<Command, String> {
        fn argument<T: DeserializeOwned>(name: &str, value: Value) -> Result<T, String> {
            serde_json::from_value(value).map_err(|error| format!("{name}: {error}"))
        }
        let value = arguments.into_iter().next().unwrap_or(Value::Null);
        Ok(match name {
            TOGGLE_BREAKPOINT => Command::ToggleBreakpoint(argument(name, value)?),
            CHOOSE_ENTRY_CALL => Command::ChooseEntryCall(argument(name, value)?),
            PREDICT => Command::Predict(argument(name, value)?),
            SUGGEST_INPUTS => Command::SuggestInputs(argument(name, value)?),
            INSERT_SUGGESTION => Command::InsertSuggestion(argument(name, value)?),
            CHECK_BY_RUNNING => Command::CheckByRunning(argument(name, value)?),
            other => return Err(format!("unknown command {other}")),
        })
    }

    pub fn name(&self) -> &'static str {
        match self {
            Command::ToggleBreakpoint(_) => TOGGLE_BREAKPOINT,
            Command::ChooseEntryCall(_) => CHOOSE_ENTRY_CALL,
            Command::Predict(_) => PREDICT,
            Command::SuggestInputs(_) => SUGGEST_INPUTS,
            Command::InsertSuggestion(_) => INSERT_SUGGESTION,
            Command::CheckByRunning(_) => CHECK_BY_RUNNING,
        }
    }

    /// The argument object, as the client sends it back.
    pub fn argument(&self) -> Value {
        let value = match self {
            Command::ToggleBreakpoint(argument) => serde_json::to_value(argument),
            Command::ChooseEntryCall(argument) => serde_json::to_value(argument),
            Command::Predict(argument) | Command::CheckByRunning(argument) => {
                serde_json::to_value(argument)
            }
            Command::SuggestInputs(argument) => serde_json::to_value(argument),
            Command::InsertSuggestion(argument) => serde_json::to_value(argument),
        };
        value.expect("command arguments are plain data")
    }

    /// The document the command is about.
    pub fn uri(&self) -> &str {
        match self {
            Command::ToggleBreakpoint(argument) => &argument.uri,
            Command::ChooseEntryCall(argument) => &argument.target.uri,
            Command::Predict(argument) | Command::CheckByRunning(argument) => &argument.uri,
            Command::SuggestInputs(argument) => &argument.target.uri,
            Command::InsertSuggestion(argument) => &argument.target.uri,
        }
    }
}

// --- Command results --------------------------------------------------------

#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct ToggleBreakpointResult {
    /// The document's breakpoint lines now (0-based).
    pub lines: Vec<usize>,
}

#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ChooseEntryCallResult {
    pub function: String,
    /// The call made active; `null` when none was chosen.
    pub entry_call: Option<String>,
    pub candidates: Vec<EntryCallCandidate>,
}

#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct EntryCallCandidate {
    pub entry_call: String,
    /// Where it was found, for people (`doctest`, `# ndb: comment`, ...).
    pub origin: String,
}

/// A confidence as the client sees it.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct ConfidenceData {
    /// Rounded to three decimals.
    pub value: f64,
    /// `likely` or `guess`.
    pub verdict: &'static str,
    pub votes: usize,
    pub samples: usize,
}

impl From<ndb_inference::debugger::Confidence> for ConfidenceData {
    fn from(confidence: ndb_inference::debugger::Confidence) -> ConfidenceData {
        ConfidenceData {
            value: (confidence.value() * 1000.0).round() / 1000.0,
            verdict: confidence.verdict().as_str(),
            votes: confidence.votes,
            samples: confidence.samples,
        }
    }
}

#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(untagged)]
pub enum PredictResult {
    #[serde(rename_all = "camelCase")]
    Output {
        entry_call: String,
        value: Option<String>,
        raised: bool,
        /// `null` for a real value (the code ran).
        confidence: Option<ConfidenceData>,
        predicted: bool,
    },
    #[serde(rename_all = "camelCase")]
    Failed { entry_call: String, error: String },
    #[serde(rename_all = "camelCase")]
    Unanswered { entry_call: String },
}

#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct SuggestionData {
    pub input: String,
    pub entry_call: String,
    pub origin: String,
    pub from: String,
    pub votes: usize,
    pub samples: usize,
    pub output: Option<String>,
    pub verified: Option<bool>,
    pub actual: Option<String>,
    /// Without running: what the model predicts the input returns.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub predicted: Option<PredictedReturnData>,
}

/// The model's prediction of what a suggested input returns (not a run).
#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct PredictedReturnData {
    pub value: Option<String>,
    pub raised: bool,
    pub gives_output: bool,
    pub confidence: Option<f64>,
    pub verdict: Option<String>,
}

#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct SuggestInputsResult {
    pub function: String,
    pub suggestions: Vec<SuggestionData>,
    /// Why there are none, when the suggester failed.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
    /// The suggestion the user picked, once inserted; `null` otherwise.
    pub inserted: Option<InsertSuggestionResult>,
}

#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct InsertSuggestionResult {
    pub applied: bool,
    pub entry_call: String,
    pub style: InsertStyle,
    /// The document edited (the test file for a pytest test).
    pub uri: String,
    pub expected: Option<String>,
    pub raised: bool,
    pub verified: Option<bool>,
}

#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct CheckByRunningResult {
    pub entry_call: String,
    pub predicted: Outcome,
    pub real: RealOutcome,
    /// Whether the prediction matched the run; `null` when either failed.
    pub right: Option<bool>,
}

#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Outcome {
    pub value: Option<String>,
    pub raised: bool,
    pub error: Option<String>,
}

#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct RealOutcome {
    #[serde(flatten)]
    pub outcome: Outcome,
    /// How the run was confined.
    pub sandbox: String,
}

// --- Notifications ----------------------------------------------------------

/// Params of the notification `ndb/setBreakpoints`: the document's neural
/// breakpoints, replacing the ones it had.
#[derive(Clone, Debug, PartialEq, Deserialize)]
pub struct SetBreakpointsParams {
    pub uri: tower_lsp_server::ls_types::Uri,
    /// 0-based lines.
    pub lines: Vec<u32>,
}

// --- Data of hints and lenses ---------------------------------------------

/// The `data` of a code lens, to resolve its command later.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct LensData {
    pub uri: String,
    pub function: String,
    pub kind: LensKind,
    pub line: usize,
}

/// The `data` of an inlay hint: its document and question, to resolve its
/// tooltip later.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct HintData {
    pub uri: String,
    pub key: KeyData,
}

/// A question key as JSON (the source hash as hex text: JSON numbers lose
/// bits past 2^53).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct KeyData {
    hash: String,
    entry_call: String,
    question: QuestionData,
    engine: Backend,
}

/// Tried in order when read: `suggest` before `output`, which both have an
/// `output` field.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(untagged)]
enum QuestionData {
    #[serde(rename_all = "camelCase")]
    AtLine {
        at_line: u32,
    },
    #[serde(rename_all = "camelCase")]
    Suggest {
        suggest: String,
        output: Option<String>,
        run: bool,
        use_model: bool,
        max_runs: usize,
        max_ms: u64,
        /// `[input, where it was found]` pairs.
        seeds: Vec<(String, String)>,
    },
    Output {
        output: OutputMode,
    },
    Check {
        check: String,
    },
}

impl From<&Key> for KeyData {
    fn from(key: &Key) -> KeyData {
        use ndb_inference::suggest::Origin;
        let question = match &key.question {
            Question::AtLine(line) => QuestionData::AtLine { at_line: *line },
            Question::Output(mode) => QuestionData::Output { output: *mode },
            Question::Suggest {
                function,
                output,
                plan,
            } => QuestionData::Suggest {
                suggest: function.clone(),
                output: output.clone(),
                run: plan.run,
                use_model: plan.use_model,
                max_runs: plan.budget.runs,
                max_ms: plan.budget.time.as_millis() as u64,
                seeds: plan
                    .seeds
                    .iter()
                    .map(|seed| {
                        let origin = match &seed.origin {
                            Origin::EntryCall(kind) => kind.clone(),
                            other => other.describe(),
                        };
                        (seed.input.clone(), origin)
                    })
                    .collect(),
            },
            Question::Check { expected } => QuestionData::Check {
                check: expected.clone(),
            },
        };
        KeyData {
            hash: format!("{:016x}", key.source_hash),
            entry_call: key.entry_call.clone(),
            question,
            engine: key.engine,
        }
    }
}

impl KeyData {
    /// The question key; `None` when the hash is not one.
    pub fn key(&self) -> Option<Key> {
        use ndb_inference::suggest::{Budget, Origin, Seed};
        let question = match &self.question {
            QuestionData::AtLine { at_line } => Question::AtLine(*at_line),
            QuestionData::Output { output } => Question::Output(*output),
            QuestionData::Suggest {
                suggest,
                output,
                run,
                use_model,
                max_runs,
                max_ms,
                seeds,
            } => Question::Suggest {
                function: suggest.clone(),
                output: output.clone(),
                plan: SuggestPlan {
                    run: *run,
                    use_model: *use_model,
                    budget: Budget {
                        runs: *max_runs,
                        time: std::time::Duration::from_millis(*max_ms),
                    },
                    seeds: seeds
                        .iter()
                        .map(|(input, origin)| Seed {
                            input: input.clone(),
                            origin: Origin::EntryCall(origin.clone()),
                        })
                        .collect(),
                },
            },
            QuestionData::Check { check } => Question::Check {
                expected: check.clone(),
            },
        };
        Some(Key {
            source_hash: u64::from_str_radix(&self.hash, 16).ok()?,
            entry_call: self.entry_call.clone(),
            question,
            engine: self.engine,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn commands_read_back_what_they_write() {
        let commands = [
            Command::ToggleBreakpoint(LineArgument {
                uri: "file:///a.py".into(),
                line: 3,
            }),
            Command::Predict(FunctionArgument::named("file:///a.py", "f")),
            Command::SuggestInputs(SuggestInputs {
                target: FunctionArgument::named("file:///a.py", "C.m"),
                output: Some("[1]".into()),
                pick: None,
            }),
            Command::InsertSuggestion(InsertSuggestion {
                target: FunctionArgument::named("file:///a.py", "f"),
                input: "1, 2".into(),
                output: None,
                votes: Some(3),
                samples: Some(4),
                style: Some(InsertStyle::Pytest),
            }),
        ];
        for command in commands {
            let again = Command::parse(command.name(), vec![command.argument()]).unwrap();
            assert_eq!(again, command);
        }
    }

    #[test]
    fn arguments_are_written_as_clients_know_them() {
        let command = Command::InsertSuggestion(InsertSuggestion {
            target: FunctionArgument::named("file:///a.py", "f"),
            input: "2".into(),
            output: None,
            votes: None,
            samples: None,
            style: Some(InsertStyle::Comment),
        });
        assert_eq!(
            command.argument().to_string(),
            r#"{"uri":"file:///a.py","function":"f","input":"2","style":"comment"}"#
        );
    }

    #[test]
    fn bad_arguments_say_what_is_wrong() {
        let missing = Command::parse(TOGGLE_BREAKPOINT, vec![json!({"uri": "file:///a.py"})]);
        assert!(missing.unwrap_err().contains("missing field `line`"));
        let style = Command::parse(
            INSERT_SUGGESTION,
            vec![json!({"uri": "u", "function": "f", "input": "1", "style": "poem"})],
        );
        assert!(style.unwrap_err().contains("poem"));
        assert_eq!(
            Command::parse("ndb.fly", vec![]).unwrap_err(),
            "unknown command ndb.fly"
        );
    }

    #[test]
    fn question_keys_survive_the_trip_through_json() {
        let keys = [
            Question::AtLine(7),
            Question::Output(OutputMode::Breakpoint),
            Question::Check {
                expected: "[1, 2]".into(),
            },
            Question::Suggest {
                function: "f".into(),
                output: None,
                plan: SuggestPlan {
                    run: true,
                    use_model: false,
                    budget: ndb_inference::suggest::Budget::default(),
                    seeds: vec![ndb_inference::suggest::Seed {
                        input: "3".into(),
                        origin: ndb_inference::suggest::Origin::EntryCall("doctest".into()),
                    }],
                },
            },
        ]
        .map(|question| Key {
            source_hash: u64::MAX - 1,
            entry_call: "f(3)".into(),
            question,
            engine: Backend::Auto,
        });
        for key in keys {
            let json = serde_json::to_value(KeyData::from(&key)).unwrap();
            let data: KeyData = serde_json::from_value(json).unwrap();
            assert_eq!(data.key(), Some(key));
        }
    }
}

//! `workspace/executeCommand`: the operations behind lenses and code
//! actions. Each takes one JSON object argument (documented in
//! `docs/lsp-protocol-extensions.md`) and answers with a JSON object, so a
//! client without pickers can drive everything; with pickers
//! (`window/showMessageRequest`) the user chooses in the editor. Edits are
//! made only through `workspace/applyEdit`, only for the suggestion the user
//! chose.

use std::collections::HashMap;
use std::path::PathBuf;

use ndb_inference::ops;
use ndb_inference::tracer::SandboxReport;
use serde::Serialize;
use serde_json::Value;
use tower_lsp_server::jsonrpc::{Error, Result};
use tower_lsp_server::ls_types::*;

use crate::convert;
use crate::document::DocumentSnapshot;
use crate::edits::{self, Edit, Expected};
use crate::engine::{Answer, Backend, Key, Question};
use crate::ide::suggestion_marks;
use crate::lsp_ext::{self, Command};
use crate::server::Server;
use crate::session::Snapshot;
use crate::settings::InsertStyle;
use crate::syntax::{Function, FunctionKind};

pub async fn execute(server: &Server, params: ExecuteCommandParams) -> Result<Option<Value>> {
    let command =
        Command::parse(&params.command, params.arguments).map_err(|error| invalid(&error))?;
    let uri = command
        .uri()
        .parse::<Uri>()
        .map_err(|_| invalid("the argument's \"uri\" is not a URI"))?;
    let snapshot = server
        .session()
        .snapshot(&uri)
        .ok_or_else(|| invalid("the document is not open"))?;
    let result = match &command {
        Command::ToggleBreakpoint(argument) => {
            let lines = crate::handlers::breakpoints::toggle(server, &uri, argument.line as usize);
            server.refresh().await;
            json(lsp_ext::ToggleBreakpointResult { lines })
        }
        Command::ChooseEntryCall(argument) => {
            json(choose_entry_call(server, &snapshot, argument).await?)
        }
        Command::Predict(argument) => json(predict(server, &snapshot, argument).await?),
        Command::SuggestInputs(argument) => {
            json(suggest_inputs(server, &snapshot, argument).await?)
        }
        Command::InsertSuggestion(argument) => {
            json(insert_suggestion(server, &snapshot, argument).await?)
        }
        Command::CheckByRunning(argument) => {
            json(check_by_running(server, &snapshot, argument).await?)
        }
    };
    Ok(Some(result))
}

fn json(result: impl Serialize) -> Value {
    serde_json::to_value(result).expect("command results are plain data")
}

fn invalid(message: &str) -> Error {
    Error::invalid_params(message.to_string())
}

/// The function the argument names (qualified name), or the one at its
/// line.
fn function_of(
    snapshot: &Snapshot,
    argument: &lsp_ext::FunctionArgument,
) -> Result<(usize, Function)> {
    let analysis = snapshot.document.analysis();
    let index = match &argument.function {
        Some(name) => analysis
            .functions
            .iter()
            .position(|function| &function.qualified_name == name),
        None => argument
            .line
            .and_then(|line| analysis.function_at_line(line as usize))
            .map(|index| analysis.functions[index].runnable),
    };
    let index = index.ok_or_else(|| invalid("no such function in the document"))?;
    Ok((index, analysis.functions[index].clone()))
}

fn active_call(snapshot: &Snapshot, index: usize) -> Result<String> {
    snapshot
        .view()
        .entry_calls(index)
        .into_iter()
        .next()
        .map(|entry| entry.call)
        .ok_or_else(|| {
            invalid(
                "the function has no entry call: add `# ndb: f(...)` above it, or suggest inputs",
            )
        })
}

async fn choose_entry_call(
    server: &Server,
    snapshot: &Snapshot,
    argument: &lsp_ext::ChooseEntryCall,
) -> Result<lsp_ext::ChooseEntryCallResult> {
    let (index, function) = function_of(snapshot, &argument.target)?;
    let calls = snapshot.view().entry_calls(index);
    let chosen = match &argument.entry_call {
        Some(call) => Some(call.clone()),
        None if server.session().client.show_message_request && !calls.is_empty() => {
            let items: Vec<MessageActionItem> = calls
                .iter()
                .take(20)
                .map(|entry| MessageActionItem {
                    title: format!("{}   ({})", entry.call, entry.origin.describe()),
                    properties: HashMap::new(),
                })
                .collect();
            let picked = server
                .client
                .show_message_request(
                    MessageType::INFO,
                    format!("ndb: entry call for {}", function.qualified_name),
                    Some(items),
                )
                .await
                .ok()
                .flatten();
            picked.and_then(|item| {
                calls
                    .iter()
                    .find(|entry| item.title.starts_with(&format!("{}   (", entry.call)))
                    .map(|entry| entry.call.clone())
            })
        }
        None => {
            if calls.is_empty() {
                server
                    .client
                    .show_message(
                        MessageType::INFO,
                        format!(
                            "ndb: no entry call found for {}: add `# ndb: {}(...)` above it, or suggest inputs",
                            function.qualified_name, function.name
                        ),
                    )
                    .await;
            }
            None
        }
    };
    if let Some(call) = &chosen {
        server
            .session()
            .user
            .entry(snapshot.uri.clone())
            .or_default()
            .chosen
            .insert(function.qualified_name.clone(), call.clone());
        server.refresh().await;
    }
    Ok(lsp_ext::ChooseEntryCallResult {
        function: function.qualified_name,
        entry_call: chosen,
        candidates: calls
            .iter()
            .map(|entry| lsp_ext::EntryCallCandidate {
                entry_call: entry.call.clone(),
                origin: entry.origin.describe(),
            })
            .collect(),
    })
}

async fn predict(
    server: &Server,
    snapshot: &Snapshot,
    argument: &lsp_ext::FunctionArgument,
) -> Result<lsp_ext::PredictResult> {
    let (index, function) = function_of(snapshot, argument)?;
    let call = active_call(snapshot, index)?;
    server
        .session()
        .predicted
        .entry(snapshot.uri.clone())
        .or_default()
        .insert(function.qualified_name.clone());
    let view = snapshot.view();
    let key = view.output_key(&call);
    let answer = ask(server, snapshot, key).await?;
    server.refresh().await;
    Ok(match &*answer {
        Answer::Output {
            value,
            raised,
            state,
        } => lsp_ext::PredictResult::Output {
            entry_call: call,
            value: value.clone(),
            raised: *raised,
            confidence: state.confidence.map(Into::into),
            predicted: state.confidence.is_some() || view.engine() == Backend::Model,
        },
        Answer::Failed(reason) => lsp_ext::PredictResult::Failed {
            entry_call: call,
            error: reason.to_string(),
        },
        _ => lsp_ext::PredictResult::Unanswered { entry_call: call },
    })
}

async fn ask(server: &Server, snapshot: &Snapshot, key: Key) -> Result<std::sync::Arc<Answer>> {
    let samples = crate::handlers::samples(server, &snapshot.settings);
    server
        .engine
        .ask_and_wait(key, snapshot.document.source(), samples, false, None)
        .await
        .ok_or_else(Error::request_cancelled)
}

async fn suggest_inputs(
    server: &Server,
    snapshot: &Snapshot,
    argument: &lsp_ext::SuggestInputs,
) -> Result<lsp_ext::SuggestInputsResult> {
    let (_, function) = function_of(snapshot, &argument.target)?;
    if function.kind != FunctionKind::Function {
        return Err(invalid(
            "suggesting inputs works for module-level functions",
        ));
    }
    let output = argument.output.as_deref();
    let view = snapshot.view();
    let key = view.suggest_key(&function.name, output);
    let answer = ask(server, snapshot, key).await?;
    let suggestions = match &*answer {
        Answer::Suggestions(suggestions) => suggestions.clone(),
        Answer::Failed(reason) => {
            server
                .client
                .show_message(
                    MessageType::WARNING,
                    format!("ndb: no suggestions for {}: {reason}", function.name),
                )
                .await;
            return Ok(lsp_ext::SuggestInputsResult {
                function: function.name,
                suggestions: Vec::new(),
                error: Some(reason.to_string()),
                inserted: None,
            });
        }
        _ => Vec::new(),
    };
    let listed = suggestions
        .iter()
        .map(|suggestion| lsp_ext::SuggestionData {
            input: suggestion.input.clone(),
            entry_call: ops::entry_call(&function.name, &suggestion.input),
            origin: suggestion.origin.kind().to_string(),
            from: suggestion.origin.describe(),
            votes: suggestion.votes,
            samples: suggestion.samples,
            output: suggestion.output.clone(),
            verified: suggestion.verified,
            actual: suggestion.actual.clone(),
            predicted: suggestion
                .model_check
                .as_ref()
                .map(|check| lsp_ext::PredictedReturnData {
                    value: check.predicted.clone(),
                    raised: check.raised,
                    gives_output: check.gives_output,
                    confidence: check.shown_confidence(),
                    verdict: check.verdict().map(str::to_string),
                }),
        })
        .collect();
    let pick = argument.pick.unwrap_or(true);
    let mut inserted = None;
    if pick && server.session().client.show_message_request && !suggestions.is_empty() {
        let items: Vec<MessageActionItem> = suggestions
            .iter()
            .take(9)
            .enumerate()
            .map(|(rank, suggestion)| MessageActionItem {
                title: format!(
                    "{}. {}({})  [{}]",
                    rank + 1,
                    function.name,
                    suggestion.input,
                    suggestion_marks(suggestion)
                ),
                properties: HashMap::new(),
            })
            .collect();
        let style = snapshot.settings.suggestions.insert_as;
        let picked = server
            .client
            .show_message_request(
                MessageType::INFO,
                format!(
                    "ndb: inputs for {}{} (most agreed first); the one you pick is inserted as a {}",
                    function.name,
                    output.map(|output| format!(" returning {output}")).unwrap_or_default(),
                    style.as_str()
                ),
                Some(items.clone()),
            )
            .await
            .ok()
            .flatten();
        if let Some(rank) = picked.and_then(|item| {
            items
                .iter()
                .position(|candidate| candidate.title == item.title)
        }) {
            let argument = lsp_ext::InsertSuggestion {
                target: lsp_ext::FunctionArgument::named(
                    snapshot.uri.as_str(),
                    &function.qualified_name,
                ),
                input: suggestions[rank].input.clone(),
                output: output
                    .map(str::to_string)
                    .or_else(|| suggestions[rank].output.clone()),
                votes: Some(suggestions[rank].votes as u64),
                samples: Some(suggestions[rank].samples as u64),
                style: Some(style),
            };
            let fresh = server
                .session()
                .snapshot(&snapshot.uri)
                .unwrap_or_else(|| snapshot.clone());
            inserted = Some(insert_suggestion(server, &fresh, &argument).await?);
        }
    }
    Ok(lsp_ext::SuggestInputsResult {
        function: function.name,
        suggestions: listed,
        error: None,
        inserted,
    })
}

async fn insert_suggestion(
    server: &Server,
    snapshot: &Snapshot,
    argument: &lsp_ext::InsertSuggestion,
) -> Result<lsp_ext::InsertSuggestionResult> {
    let (_, function) = function_of(snapshot, &argument.target)?;
    let style = argument
        .style
        .unwrap_or(snapshot.settings.suggestions.insert_as);
    let call = ops::entry_call(&function.name, &argument.input);
    let mut expected = expected_of(server, snapshot, &call, argument.output.as_deref()).await?;
    if let (Some(votes), Some(samples)) = (argument.votes, argument.samples) {
        expected.agreement = format!("{votes}/{samples} agree");
    }
    let (uri, planned) = match style {
        InsertStyle::Doctest => {
            let edit = edits::doctest(&snapshot.document, &function, &call, &expected);
            (
                snapshot.uri.clone(),
                Planned::Change(snapshot.document.clone(), edit),
            )
        }
        InsertStyle::Comment => {
            let analysis = snapshot.document.analysis();
            let existing = analysis
                .ndb_comments_of(&function)
                .last()
                .map(|comment| comment.range.clone());
            let edit = edits::ndb_comment(&snapshot.document, &function, existing, &call);
            (
                snapshot.uri.clone(),
                Planned::Change(snapshot.document.clone(), edit),
            )
        }
        InsertStyle::Pytest => pytest_edit(server, snapshot, &function, &call, &expected)?,
    };
    let applied = apply(server, &uri, planned).await?;
    if applied {
        server
            .session()
            .user
            .entry(snapshot.uri.clone())
            .or_default()
            .accepted
            .entry(function.qualified_name.clone())
            .or_default()
            .push(call.clone());
        server.refresh().await;
    }
    Ok(lsp_ext::InsertSuggestionResult {
        applied,
        entry_call: call,
        style,
        uri: uri.as_str().to_string(),
        expected: expected.value,
        raised: expected.raised,
        verified: expected.verified,
    })
}

/// What the inserted test expects: the output the user asked for, else the
/// predicted output of the call; verified by running when allowed.
async fn expected_of(
    server: &Server,
    snapshot: &Snapshot,
    call: &str,
    output: Option<&str>,
) -> Result<Expected> {
    let view = snapshot.view();
    let (value, raised, agreement) = match output {
        Some(output) => (Some(output.to_string()), false, "output given".to_string()),
        None => match &*ask(server, snapshot, view.output_key(call)).await? {
            Answer::Output {
                value,
                raised,
                state,
            } => (
                value.clone(),
                *raised,
                state.confidence.map_or("ran".to_string(), |c| {
                    format!("{}/{} agree", c.votes, c.samples)
                }),
            ),
            Answer::Failed(reason) => {
                return Err(invalid(&format!(
                    "no predicted output for {call}: {reason}"
                )))
            }
            _ => (None, false, String::new()),
        },
    };
    let verified = if snapshot.settings.allow_running_code && raised {
        // An exception cannot be compared by value: run the call and compare
        // the exception's class, which is what the doctest checks.
        let mut key = view.output_key(call);
        key.engine = Backend::Tracer;
        match &*ask(server, snapshot, key).await? {
            Answer::Output {
                value: real,
                raised: true,
                ..
            } => Some(class_name(real.as_deref()) == class_name(value.as_deref())),
            Answer::Output { .. } => Some(false),
            _ => None,
        }
    } else if snapshot.settings.allow_running_code {
        let key = Key {
            source_hash: snapshot.document.hash,
            entry_call: call.to_string(),
            question: Question::Check {
                expected: value.clone().unwrap_or_else(|| "None".to_string()),
            },
            engine: Backend::Tracer,
        };
        match &*ask(server, snapshot, key).await? {
            Answer::Checked(verdict) => *verdict,
            _ => None,
        }
    } else {
        None
    };
    Ok(Expected {
        value,
        raised,
        verified,
        agreement,
    })
}

/// The class of an exception repr such as `ValueError('bad')`.
fn class_name(value: Option<&str>) -> &str {
    value.unwrap_or("").split('(').next().unwrap_or("").trim()
}

fn pytest_edit(
    server: &Server,
    snapshot: &Snapshot,
    function: &Function,
    call: &str,
    expected: &Expected,
) -> Result<(Uri, Planned)> {
    let module_path: PathBuf = snapshot
        .uri
        .to_file_path()
        .ok_or_else(|| invalid("pytest tests need a file on disk"))?
        .into_owned();
    let module = module_path
        .file_stem()
        .and_then(|stem| stem.to_str())
        .ok_or_else(|| invalid("the file has no module name"))?
        .to_string();
    let (test_files, open_text) = {
        let session = server.session();
        let files: Vec<PathBuf> = session
            .test_files
            .iter()
            .map(|(path, _)| path.clone())
            .collect();
        let (path, _) = crate::workspace::test_file_for(&module_path, &files);
        let uri = Uri::from_file_path(&path);
        let open = uri
            .as_ref()
            .and_then(|uri| session.documents.get(uri))
            .map(|document| document.text().to_string());
        (files, open)
    };
    let (path, exists) = crate::workspace::test_file_for(&module_path, &test_files);
    let exists = exists || path.exists();
    let text = match open_text {
        Some(text) => Some(text),
        None if exists => {
            Some(std::fs::read_to_string(&path).map_err(|error| invalid(&error.to_string()))?)
        }
        None => None,
    };
    let uri = Uri::from_file_path(&path).ok_or_else(|| invalid("bad test file path"))?;
    let edit = edits::pytest(text.as_deref(), &module, &function.name, call, expected);
    Ok(match text {
        Some(text) => (
            uri,
            Planned::Change(DocumentSnapshot::new(&text, 0, None), edit),
        ),
        None => (uri, Planned::Create(edit.text)),
    })
}

/// The edit an insertion makes: a change of a document as the server
/// knows its text, or a new file with this text.
enum Planned {
    Change(DocumentSnapshot, Edit),
    Create(String),
}

/// Sends one edit through `workspace/applyEdit`; `true` when applied.
async fn apply(server: &Server, uri: &Uri, planned: Planned) -> Result<bool> {
    let flags = server.session().client;
    if !flags.apply_edit {
        return Err(invalid("the editor does not accept workspace/applyEdit"));
    }
    let encoding = server.session().encoding;
    let workspace_edit = match planned {
        Planned::Create(text) => {
            if !(flags.create_files && flags.document_changes) {
                return Err(invalid(&format!(
                    "the editor cannot create files; create {} and try again",
                    uri.as_str()
                )));
            }
            WorkspaceEdit {
                document_changes: Some(DocumentChanges::Operations(vec![
                    DocumentChangeOperation::Op(ResourceOp::Create(CreateFile {
                        uri: uri.clone(),
                        options: Some(CreateFileOptions {
                            overwrite: Some(false),
                            ignore_if_exists: Some(true),
                        }),
                        annotation_id: None,
                    })),
                    DocumentChangeOperation::Edit(TextDocumentEdit {
                        text_document: OptionalVersionedTextDocumentIdentifier {
                            uri: uri.clone(),
                            version: None,
                        },
                        edits: vec![OneOf::Left(TextEdit {
                            range: Range::default(),
                            new_text: text,
                        })],
                    }),
                ])),
                ..WorkspaceEdit::default()
            }
        }
        Planned::Change(document, edit) => {
            let range = convert::range(&document, edit.range, encoding);
            WorkspaceEdit {
                changes: Some(HashMap::from([(
                    uri.clone(),
                    vec![TextEdit {
                        range,
                        new_text: edit.text,
                    }],
                )])),
                ..WorkspaceEdit::default()
            }
        }
    };
    let response = server
        .client
        .apply_edit(workspace_edit)
        .await
        .map_err(|error| invalid(&format!("workspace/applyEdit failed: {error}")))?;
    if let Some(reason) = &response.failure_reason {
        eprintln!("ndb lsp: the editor did not apply the edit: {reason}");
    }
    Ok(response.applied)
}

async fn check_by_running(
    server: &Server,
    snapshot: &Snapshot,
    argument: &lsp_ext::FunctionArgument,
) -> Result<lsp_ext::CheckByRunningResult> {
    if !snapshot.settings.allow_running_code {
        return Err(invalid(
            "running code is off: set neuralDebugger.allowRunningCode to true to check by running",
        ));
    }
    let (index, _) = function_of(snapshot, argument)?;
    let call = active_call(snapshot, index)?;
    let view = snapshot.view();
    let mut predicted_key = view.output_key(&call);
    predicted_key.engine = Backend::Model;
    let mut real_key = predicted_key.clone();
    real_key.engine = Backend::Tracer;
    let real = ask(server, snapshot, real_key).await?;
    let predicted = ask(server, snapshot, predicted_key).await?;
    let describe = |answer: &Answer| match answer {
        Answer::Output { value, raised, .. } => (value.clone(), *raised, None),
        Answer::Failed(reason) => (None, false, Some(reason.to_string())),
        _ => (None, false, None),
    };
    let (real_value, real_raised, real_error) = describe(&real);
    let sandbox = SandboxReport::current().summary();
    let (predicted_value, predicted_raised, predicted_error) = describe(&predicted);
    let right = (real_error.is_none() && predicted_error.is_none())
        .then(|| real_value == predicted_value && real_raised == predicted_raised);
    let verdict = match right {
        Some(true) => "✓ the prediction is right",
        Some(false) => "✗ the prediction is wrong",
        None => "could not compare",
    };
    let show = |value: &Option<String>, raised: bool, error: &Option<String>| match error {
        Some(error) => format!("no answer ({error})"),
        None => format!(
            "{} {}",
            if raised { "raises" } else { "returns" },
            value.as_deref().unwrap_or("None")
        ),
    };
    server
        .client
        .show_message(
            MessageType::INFO,
            format!(
                "ndb: {call}: predicted {}, ran ({sandbox}) {}: {verdict}",
                show(&predicted_value, predicted_raised, &predicted_error),
                show(&real_value, real_raised, &real_error)
            ),
        )
        .await;
    Ok(lsp_ext::CheckByRunningResult {
        entry_call: call,
        predicted: lsp_ext::Outcome {
            value: predicted_value,
            raised: predicted_raised,
            error: predicted_error,
        },
        real: lsp_ext::RealOutcome {
            outcome: lsp_ext::Outcome {
                value: real_value,
                raised: real_raised,
                error: real_error,
            },
            sandbox,
        },
        right,
    })
}

//! `textDocument/codeAction`: "Neural breakpoint here" on any line, and the
//! lens operations for editors without code lenses, each running a command.

use tower_lsp_server::jsonrpc::Result;
use tower_lsp_server::ls_types::*;

use crate::convert;
use crate::handlers::EngineAnswers;
use crate::ide;
use crate::server::Server;

pub async fn code_action(
    server: &Server,
    params: CodeActionParams,
) -> Result<Option<CodeActionResponse>> {
    let Some(snapshot) = server.session().snapshot(&params.text_document.uri) else {
        return Ok(None);
    };
    let document = &snapshot.document;
    let start = convert::to_offset(document, params.range.start, snapshot.encoding);
    let end = convert::to_offset(document, params.range.end, snapshot.encoding).max(start);
    let line = document.line_index.line_of(start);
    let selection = (end > start).then(|| &document.text[start..end]);
    let actions = ide::code_actions(
        &snapshot.view(),
        line,
        selection,
        &EngineAnswers(&server.engine),
    )
    .into_iter()
    .map(|action| {
        CodeActionOrCommand::CodeAction(CodeAction {
            title: action.title.clone(),
            kind: None,
            command: Some(crate::handlers::lsp_command(action)),
            ..CodeAction::default()
        })
    })
    .collect();
    Ok(Some(actions))
}

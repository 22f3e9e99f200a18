//! `textDocument/codeLens` and `codeLens/resolve`: above each function, its
//! active entry call (click to choose another), predict, suggest inputs and,
//! when running code is allowed, check by running. Titles are filled in at
//! resolve time, when the predicted return value may be known.

use serde_json::json;
use tower_lsp_server::jsonrpc::Result;
use tower_lsp_server::ls_types::*;

use crate::convert;
use crate::handlers::EngineAnswers;
use crate::ide::{self, Lens, LensKind};
use crate::server::Server;

pub async fn code_lens(server: &Server, params: CodeLensParams) -> Result<Option<Vec<CodeLens>>> {
    let Some(snapshot) = server.session().snapshot(&params.text_document.uri) else {
        return Ok(None);
    };
    let document = &snapshot.document;
    let lenses = ide::code_lenses(&snapshot.view())
        .into_iter()
        .map(|lens| {
            let start = document.line_index.line_start(lens.line).unwrap_or(0);
            CodeLens {
                range: convert::range(document, start..start, snapshot.encoding),
                command: None,
                data: Some(json!({
                    "uri": snapshot.uri.as_str(),
                    "function": lens.function,
                    "kind": lens.kind.as_str(),
                    "line": lens.line,
                })),
            }
        })
        .collect();
    Ok(Some(lenses))
}

pub async fn resolve(server: &Server, mut lens: CodeLens) -> Result<CodeLens> {
    let Some(data) = lens.data.as_ref() else {
        return Ok(lens);
    };
    let uri = data
        .get("uri")
        .and_then(|uri| uri.as_str())
        .and_then(|uri| uri.parse::<Uri>().ok());
    let function = data.get("function").and_then(|function| function.as_str());
    let kind = data
        .get("kind")
        .and_then(|kind| kind.as_str())
        .and_then(LensKind::parse);
    let line = data.get("line").and_then(|line| line.as_u64()).unwrap_or(0) as usize;
    let (Some(uri), Some(function), Some(kind)) = (uri, function, kind) else {
        return Ok(lens);
    };
    let Some(snapshot) = server.session().snapshot(&uri) else {
        return Ok(lens);
    };
    let unresolved = Lens {
        line,
        function: function.to_string(),
        kind,
    };
    let command = ide::resolve_lens(
        &snapshot.view(),
        &unresolved,
        &EngineAnswers(&server.engine),
    );
    lens.command = Some(match command {
        Some(command) => Command {
            title: command.title,
            command: command.command,
            arguments: Some(vec![command.argument]),
        },
        None => Command {
            title: "ndb: (this function changed; the lenses will update)".to_string(),
            command: String::new(),
            arguments: None,
        },
    });
    Ok(lens)
}

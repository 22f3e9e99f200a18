//! `textDocument/codeLens` and `codeLens/resolve`: above each function, its
//! active entry call (click to choose another), predict, suggest inputs and,
//! when running code is allowed, check by running. Titles are filled in at
//! resolve time, when the predicted return value may be known.

use tower_lsp_server::jsonrpc::Result;
use tower_lsp_server::ls_types::*;

use crate::convert;
use crate::handlers::EngineAnswers;
use crate::ide::{self, Lens};
use crate::lsp_ext::LensData;
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
                data: serde_json::to_value(LensData {
                    uri: snapshot.uri.as_str().to_string(),
                    function: lens.function,
                    kind: lens.kind,
                    line: lens.line,
                })
                .ok(),
            }
        })
        .collect();
    Ok(Some(lenses))
}

pub async fn resolve(server: &Server, mut lens: CodeLens) -> Result<CodeLens> {
    let Some(data) = lens
        .data
        .clone()
        .and_then(|data| serde_json::from_value::<LensData>(data).ok())
    else {
        return Ok(lens);
    };
    let Ok(uri) = data.uri.parse::<Uri>() else {
        return Ok(lens);
    };
    let Some(snapshot) = server.session().snapshot(&uri) else {
        return Ok(lens);
    };
    let unresolved = Lens {
        line: data.line,
        function: data.function,
        kind: data.kind,
    };
    let command = ide::resolve_lens(
        &snapshot.view(),
        &unresolved,
        &EngineAnswers(&server.engine),
    );
    lens.command = Some(match command {
        Some(command) => crate::handlers::lsp_command(command),
        None => Command {
            title: "ndb: (this function changed; the lenses will update)".to_string(),
            command: String::new(),
            arguments: None,
        },
    });
    Ok(lens)
}

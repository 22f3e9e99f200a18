//! `textDocument/inlayHint` and `inlayHint/resolve`: predicted locals at
//! neural breakpoints and predicted return values. Missing answers are asked
//! in the background; the client is told to refresh when they arrive.

use std::time::Duration;

use tower_lsp_server::jsonrpc::Result;
use tower_lsp_server::ls_types::*;

use crate::convert;
use crate::handlers::{samples, EngineAnswers};
use crate::ide;
use crate::lsp_ext::{HintData, KeyData};
use crate::server::Server;

pub async fn inlay_hint(
    server: &Server,
    params: InlayHintParams,
) -> Result<Option<Vec<InlayHint>>> {
    let Some(snapshot) = server.session().snapshot(&params.text_document.uri) else {
        return Ok(None);
    };
    let document = &snapshot.document;
    let encoding = snapshot.encoding;
    let start = convert::to_offset(document, params.range.start, encoding);
    let end = convert::to_offset(document, params.range.end, encoding);
    let lines = document.line_index.line_of(start)..document.line_index.line_of(end) + 1;
    let view = snapshot.view();
    let hints = ide::inlay_hints(&view, lines, &EngineAnswers(&server.engine));
    let samples = samples(server, &snapshot.settings);
    let quiet = Duration::from_millis(snapshot.settings.debounce_ms);
    for key in hints.needed {
        server
            .engine
            .ask(key, document.source(), samples, true, quiet);
    }
    let hints = hints
        .hints
        .into_iter()
        .map(|hint| InlayHint {
            position: convert::to_position(document, hint.offset, encoding),
            label: InlayHintLabel::String(hint.label),
            kind: None,
            text_edits: None,
            tooltip: None,
            padding_left: Some(true),
            padding_right: None,
            data: serde_json::to_value(HintData {
                uri: snapshot.uri.as_str().to_string(),
                key: KeyData::from(&hint.key),
            })
            .ok(),
        })
        .collect();
    Ok(Some(hints))
}

pub async fn resolve(server: &Server, mut hint: InlayHint) -> Result<InlayHint> {
    let Some(data) = hint
        .data
        .clone()
        .and_then(|data| serde_json::from_value::<HintData>(data).ok())
    else {
        return Ok(hint);
    };
    let (Ok(uri), Some(key)) = (data.uri.parse::<Uri>(), data.key.key()) else {
        return Ok(hint);
    };
    let Some(snapshot) = server.session().snapshot(&uri) else {
        return Ok(hint);
    };
    if let Some(markdown) =
        ide::hint_tooltip(&snapshot.view(), &key, &EngineAnswers(&server.engine))
    {
        hint.tooltip = Some(InlayHintTooltip::MarkupContent(MarkupContent {
            kind: MarkupKind::Markdown,
            value: markdown,
        }));
    }
    Ok(hint)
}

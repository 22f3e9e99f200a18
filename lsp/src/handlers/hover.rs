//! `textDocument/hover`: a variable's predicted value at its line, with the
//! confidence, and the real value beside it when running code is allowed.
//! Waits for a running prediction at most `neuralDebugger.hover.waitMs`.

use std::time::{Duration, Instant};

use tower_lsp_server::jsonrpc::Result;
use tower_lsp_server::ls_types::*;

use crate::convert;
use crate::handlers::{samples, EngineAnswers};
use crate::ide;
use crate::server::Server;

pub async fn hover(server: &Server, params: HoverParams) -> Result<Option<Hover>> {
    let position = params.text_document_position_params;
    let Some(snapshot) = server.session().snapshot(&position.text_document.uri) else {
        return Ok(None);
    };
    let document = &snapshot.document;
    let offset = convert::to_offset(document, position.position, snapshot.encoding);
    let view = snapshot.view();
    let mut result = ide::hover(&view, offset, &EngineAnswers(&server.engine));
    if !result.needed.is_empty() {
        let samples = samples(server, &snapshot.settings);
        let deadline = Instant::now() + Duration::from_millis(snapshot.settings.hover.wait_ms);
        for key in std::mem::take(&mut result.needed) {
            let left = deadline.saturating_duration_since(Instant::now());
            server
                .engine
                .ask_and_wait(key, document.source(), samples, true, Some(left))
                .await;
        }
        result = ide::hover(&view, offset, &EngineAnswers(&server.engine));
    }
    Ok(result.hover.map(|hover| Hover {
        contents: HoverContents::Markup(MarkupContent {
            kind: MarkupKind::Markdown,
            value: hover.markdown,
        }),
        range: Some(convert::range(document, hover.range, snapshot.encoding)),
    }))
}

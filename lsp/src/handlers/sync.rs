//! Document synchronisation: open, incremental change, close, save. Edits
//! are applied synchronously (by `document.rs`, positions converted there
//! against the running text), before anything can await, and stale
//! predictions are cancelled right after.

use tower_lsp_server::ls_types::*;

use crate::convert;
use crate::document::{Document, PositionedChange};
use crate::server::Server;
use crate::workspace::is_test_file;

pub fn did_open(server: &Server, params: DidOpenTextDocumentParams) {
    let document = params.text_document;
    let mut session = server.session();
    session.documents.insert(
        document.uri,
        Document::new(&document.text, document.version),
    );
}

pub fn did_change(server: &Server, params: DidChangeTextDocumentParams) {
    let uri = params.text_document.uri;
    let live = {
        let mut session = server.session();
        let encoding = session.encoding;
        let Some(document) = session.documents.get_mut(&uri) else {
            eprintln!(
                "ndb lsp: change of a document that is not open: {}",
                uri.as_str()
            );
            return;
        };
        let changes = params
            .content_changes
            .into_iter()
            .map(|change| PositionedChange {
                range: change.range.map(|range| {
                    convert::line_column(range.start)..convert::line_column(range.end)
                }),
                text: change.text,
            })
            .collect();
        let shifts = document.apply_positioned(changes, params.text_document.version, encoding);
        for shift in shifts {
            session.shift_breakpoints(
                &uri,
                shift.start_line,
                shift.end_line,
                &shift.inserted,
                shift.at_line_start,
            );
        }
        session.live_hashes()
    };
    server.engine.cancel_stale(&live);
}

pub fn did_close(server: &Server, params: DidCloseTextDocumentParams) {
    let live = {
        let mut session = server.session();
        session.documents.remove(&params.text_document.uri);
        session.live_hashes()
    };
    server.engine.cancel_stale(&live);
}

pub async fn did_save(server: &Server, params: DidSaveTextDocumentParams) {
    // A saved test file may hold new entry calls.
    let Some(path) = params.text_document.uri.to_file_path() else {
        return;
    };
    if is_test_file(&path) {
        crate::handlers::lifecycle::start_test_file_scan(server);
    }
}

//! Document synchronisation: open, incremental change, close, save. Edits
//! are applied synchronously, before anything can await, and stale
//! predictions are cancelled right after.

use tower_lsp_server::ls_types::*;

use crate::convert;
use crate::document::{Document, TextChange};
use crate::line_index::LineIndex;
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
        let mut changes = Vec::with_capacity(params.content_changes.len());
        let mut shifts = Vec::new();
        // Each change is relative to the text the previous one left, so
        // positions are converted against a running copy.
        let mut text = document.text().to_string();
        let mut index = document.line_index().clone();
        let count = params.content_changes.len();
        for (number, change) in params.content_changes.into_iter().enumerate() {
            let range = change.range.map(|range| {
                let start = convert::offset(&text, &index, range.start, encoding);
                let end = convert::offset(&text, &index, range.end, encoding);
                start..end.max(start)
            });
            match &range {
                Some(range) => {
                    let start_line = index.line_of(range.start);
                    let end_line = index.line_of(range.end);
                    let line_start = index.line_start(start_line).unwrap_or(0);
                    let at_line_start = range.is_empty()
                        && text[line_start..range.start].trim().is_empty()
                        && change.text.ends_with('\n');
                    shifts.push((start_line, end_line, change.text.clone(), at_line_start));
                    text.replace_range(range.clone(), &change.text);
                }
                None => text.clone_from(&change.text),
            }
            if number + 1 < count {
                index = LineIndex::new(&text);
            }
            changes.push(TextChange {
                range,
                text: change.text,
            });
        }
        document.apply_changes(&changes, params.text_document.version);
        for (start_line, end_line, inserted, at_line_start) in shifts {
            session.shift_breakpoints(&uri, start_line, end_line, &inserted, at_line_start);
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

//! Neural breakpoints: the custom notification `ndb/setBreakpoints`, which
//! replaces one document's set (a client mirrors its gutter breakpoints),
//! and the toggle used by the command and the code action.

use crate::lsp_ext::SetBreakpointsParams;
use crate::server::Server;

pub async fn set(server: &Server, params: SetBreakpointsParams) {
    {
        let mut session = server.session();
        let lines = params.lines.iter().map(|&line| line as usize).collect();
        session.breakpoints.insert(params.uri, lines);
    }
    server.refresh().await;
}

/// Adds or removes the breakpoint at a 0-based line; returns the new set.
pub fn toggle(server: &Server, uri: &tower_lsp_server::ls_types::Uri, line: usize) -> Vec<usize> {
    let mut session = server.session();
    let lines = session.breakpoints.entry(uri.clone()).or_default();
    if !lines.remove(&line) {
        lines.insert(line);
    }
    lines.iter().copied().collect()
}

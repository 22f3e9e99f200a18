//! All mutable state of the server in one place, changed only inside short
//! synchronous sections under one lock (never across an `.await`), and read
//! through snapshots that requests take and then work on without the lock.

use std::collections::{BTreeSet, HashMap, HashSet};
use std::path::{Path, PathBuf};
use std::sync::Arc;

use tower_lsp_server::ls_types::Uri;

use crate::document::{Document, DocumentSnapshot};
use crate::entry_calls::{ExternalCalls, UserEntryCalls};
use crate::ide::View;
use crate::line_index::PositionEncoding;
use crate::settings::Settings;

/// What the client said it can do, reduced to what the server asks.
#[derive(Clone, Copy, Debug, Default)]
pub struct ClientFlags {
    pub inlay_hint_refresh: bool,
    pub code_lens_refresh: bool,
    pub work_done_progress: bool,
    pub show_message_request: bool,
    pub configuration: bool,
    pub apply_edit: bool,
    pub create_files: bool,
    pub document_changes: bool,
}

/// The server's state.
#[derive(Default)]
pub struct Session {
    pub documents: HashMap<Uri, Document>,
    /// 0-based lines, per document; kept for closed documents too.
    pub breakpoints: HashMap<Uri, BTreeSet<usize>>,
    pub user: HashMap<Uri, UserEntryCalls>,
    /// Functions the user asked to predict, per document.
    pub predicted: HashMap<Uri, HashSet<String>>,
    /// Parsed test files of the workspace.
    pub test_files: Arc<Vec<(PathBuf, DocumentSnapshot)>>,
    pub settings: Settings,
    /// The `initializationOptions` settings, the base that
    /// `workspace/configuration` answers are laid over.
    pub initial_settings: serde_json::Value,
    pub encoding: PositionEncoding,
    pub client: ClientFlags,
    pub roots: Vec<PathBuf>,
    /// The model failure was shown to the user.
    pub model_failure_shown: bool,
}

/// A request's copy of what it needs about one document.
#[derive(Clone)]
pub struct Snapshot {
    pub uri: Uri,
    pub document: DocumentSnapshot,
    pub breakpoints: BTreeSet<usize>,
    pub user: UserEntryCalls,
    pub external: ExternalCalls,
    pub settings: Settings,
    pub predicted: HashSet<String>,
    pub encoding: PositionEncoding,
}

impl Snapshot {
    pub fn view(&self) -> View<'_> {
        View {
            uri: self.uri.as_str(),
            document: &self.document,
            breakpoints: &self.breakpoints,
            user: &self.user,
            external: &self.external,
            settings: &self.settings,
            predicted_functions: &self.predicted,
        }
    }
}

impl Session {
    /// A snapshot of an open document.
    pub fn snapshot(&self, uri: &Uri) -> Option<Snapshot> {
        let document = self.documents.get(uri)?.snapshot();
        Some(Snapshot {
            uri: uri.clone(),
            external: self.external_calls(uri),
            document,
            breakpoints: self.breakpoints.get(uri).cloned().unwrap_or_default(),
            user: self.user.get(uri).cloned().unwrap_or_default(),
            settings: self.settings.clone(),
            predicted: self.predicted.get(uri).cloned().unwrap_or_default(),
            encoding: self.encoding,
        })
    }

    /// Hashes of every open document's text: work for other texts is stale.
    pub fn live_hashes(&self) -> HashSet<u64> {
        self.documents
            .values()
            .map(|document| document.snapshot().hash)
            .collect()
    }

    /// Entry calls of the module at `uri` found in the workspace's test files.
    fn external_calls(&self, uri: &Uri) -> ExternalCalls {
        let mut calls = ExternalCalls::new();
        if !self.settings.scan_test_files {
            return calls;
        }
        let Some(path) = uri.to_file_path() else {
            return calls;
        };
        let Some(stem) = path.file_stem().and_then(|stem| stem.to_str()) else {
            return calls;
        };
        for (test_path, test) in self.test_files.iter() {
            if test_path.as_path() == path.as_ref() as &Path {
                continue;
            }
            let label = self.relative(test_path);
            crate::workspace::merge(
                &mut calls,
                crate::workspace::calls_in_test_file(test, stem, &label),
            );
        }
        calls
    }

    /// A path relative to the first workspace root that holds it.
    pub fn relative(&self, path: &Path) -> String {
        self.roots
            .iter()
            .find_map(|root| path.strip_prefix(root).ok())
            .unwrap_or(path)
            .display()
            .to_string()
    }

    /// Moves the breakpoints of `uri` with an edit of lines
    /// `start_line..=end_line` that inserted `inserted` (0-based lines).
    pub fn shift_breakpoints(
        &mut self,
        uri: &Uri,
        start_line: usize,
        end_line: usize,
        inserted: &str,
        at_line_start: bool,
    ) {
        let Some(lines) = self.breakpoints.get_mut(uri) else {
            return;
        };
        let added = inserted.bytes().filter(|&byte| byte == b'\n').count() as isize;
        let delta = added - (end_line - start_line) as isize;
        if delta == 0 {
            return;
        }
        let moved: BTreeSet<usize> = lines
            .iter()
            .map(|&line| {
                let shifts = line > end_line
                    || (line == start_line && at_line_start && start_line == end_line && delta > 0);
                if shifts {
                    (line as isize + delta).max(start_line as isize) as usize
                } else if line > start_line && line <= end_line {
                    start_line
                } else {
                    line
                }
            })
            .collect();
        *lines = moved;
    }
}

//! The Zed extension of ndb: finds the `ndb` binary and starts `ndb lsp`
//! for Python files, and hands it the user's settings. Zed runs several
//! language servers for one language, so ndb works next to Zed's Python
//! servers. No logic beyond launching: everything else is the server's.
//!
//! Zed's settings (`settings.json`):
//!
//! ```json
//! "lsp": {
//!   "ndb": {
//!     "binary": { "path": "/path/to/ndb", "arguments": ["lsp", "--samples", "4"] },
//!     "settings": { "neuralDebugger": { "allowRunningCode": false } }
//!   }
//! }
//! ```

use zed_extension_api::{self as zed, serde_json, settings::LspSettings, LanguageServerId};

/// The server's name in `extension.toml` and in Zed's `lsp` settings.
const SERVER: &str = "ndb";

struct NdbExtension;

/// The user's `neuralDebugger` settings, whether written with the section
/// or without it.
fn neural_debugger_settings(settings: &LspSettings) -> serde_json::Value {
    let value = settings
        .settings
        .clone()
        .unwrap_or_else(|| serde_json::json!({}));
    match value.get("neuralDebugger") {
        Some(section) => section.clone(),
        None => value,
    }
}

impl zed::Extension for NdbExtension {
    fn new() -> Self {
        NdbExtension
    }

    fn language_server_command(
        &mut self,
        _language_server_id: &LanguageServerId,
        worktree: &zed::Worktree,
    ) -> zed::Result<zed::Command> {
        let binary = LspSettings::for_worktree(SERVER, worktree)
            .ok()
            .and_then(|settings| settings.binary);
        let configured_path = binary.as_ref().and_then(|binary| binary.path.clone());
        let command = configured_path
            .or_else(|| worktree.which("ndb"))
            .ok_or_else(|| {
                "ndb was not found on PATH: install it (`cargo install --path .` in the ndb \
                 repository) or set lsp.ndb.binary.path in Zed's settings"
                    .to_string()
            })?;
        let args = binary
            .as_ref()
            .and_then(|binary| binary.arguments.clone())
            .unwrap_or_else(|| vec!["lsp".to_string()]);
        let mut env = worktree.shell_env();
        if let Some(extra) = binary.and_then(|binary| binary.env) {
            env.extend(extra);
        }
        Ok(zed::Command { command, args, env })
    }

    /// The server reads `samples` and `modelPath` at start, from the
    /// initialization options: the same settings go there unless the user
    /// wrote initialization options of their own.
    fn language_server_initialization_options(
        &mut self,
        _language_server_id: &LanguageServerId,
        worktree: &zed::Worktree,
    ) -> zed::Result<Option<serde_json::Value>> {
        let Ok(settings) = LspSettings::for_worktree(SERVER, worktree) else {
            return Ok(None);
        };
        if let Some(options) = settings.initialization_options.clone() {
            return Ok(Some(options));
        }
        Ok(Some(
            serde_json::json!({ "neuralDebugger": neural_debugger_settings(&settings) }),
        ))
    }

    /// Answers `workspace/configuration` for the section `neuralDebugger`.
    fn language_server_workspace_configuration(
        &mut self,
        _language_server_id: &LanguageServerId,
        worktree: &zed::Worktree,
    ) -> zed::Result<Option<serde_json::Value>> {
        let settings = LspSettings::for_worktree(SERVER, worktree)
            .map(|settings| neural_debugger_settings(&settings))
            .unwrap_or_else(|_| serde_json::json!({}));
        Ok(Some(serde_json::json!({ "neuralDebugger": settings })))
    }
}

zed::register_extension!(NdbExtension);

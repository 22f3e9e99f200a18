//! One file per request or notification: each turns protocol input into
//! calls of the pure layers and converts the answer back at the edge.

pub mod breakpoints;
pub mod code_action;
pub mod code_lens;
pub mod commands;
pub mod configuration;
pub mod hover;
pub mod inlay_hints;
pub mod lifecycle;
pub mod sync;

use std::sync::Arc;

use crate::engine::{Answer, Engine, Key, ModelState, ModelUnavailable};
use crate::ide::Answers;

/// The engine's cache as the pure layer's [`Answers`].
pub struct EngineAnswers<'a>(pub &'a Engine);

impl Answers for EngineAnswers<'_> {
    fn cached(&self, key: &Key) -> Option<Arc<Answer>> {
        self.0.cached(key)
    }

    fn latest(&self, key: &Key) -> Option<(u64, Arc<Answer>)> {
        self.0.latest(key)
    }

    fn unavailable(&self) -> Option<ModelUnavailable> {
        match self.0.model_state() {
            ModelState::Failed(reason) => Some(reason),
            _ => None,
        }
    }

    fn answerer(&self) -> String {
        self.0.model_name()
    }
}

/// A command of the pure layer as the protocol's.
pub fn lsp_command(data: crate::ide::CommandData) -> tower_lsp_server::ls_types::Command {
    tower_lsp_server::ls_types::Command {
        title: data.title,
        command: data.command.name().to_string(),
        arguments: Some(vec![data.command.argument()]),
    }
}

/// The samples per question: the setting, else the model's own.
pub fn samples(server: &crate::server::Server, settings: &crate::settings::Settings) -> usize {
    settings
        .samples
        .unwrap_or_else(|| server.engine.samples())
        .max(1)
}

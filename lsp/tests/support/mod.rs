//! Shared by the in-process tests: fixtures with markers, a stand-in model
//! that is the real tracer with a made-up agreement, and answers computed on
//! the spot.

#![allow(dead_code)]

pub mod client;

use ndb_inference::debugger::Source;
use std::collections::{BTreeSet, HashMap};
use std::sync::{Arc, Mutex};

use ndb_grammar::Action;
use ndb_inference::debugger::{
    AutoDebugger, Cancel, Confidence, DebugError, Debugger, Session, State, TracerDebugger,
};
use ndb_inference::tracer::TracerConfig;
use ndb_lsp::engine::{answer_blocking, Answer, Key};
use ndb_lsp::ide::Answers;

/// The cursor marker, removed from the text.
pub const CURSOR: &str = "$0";
/// A line holding this comment has a neural breakpoint (the comment stays).
pub const BREAKPOINT: &str = "# <- breakpoint";

/// A Python fixture with its markers read.
pub struct Fixture {
    pub text: String,
    pub cursor: Option<usize>,
    pub breakpoints: BTreeSet<usize>,
}

impl Fixture {
    pub fn parse(marked: &str) -> Fixture {
        let cursor = marked.find(CURSOR);
        let text = marked.replacen(CURSOR, "", 1);
        let breakpoints = text
            .lines()
            .enumerate()
            .filter(|(_, line)| line.contains(BREAKPOINT))
            .map(|(index, _)| index)
            .collect();
        Fixture {
            text,
            cursor,
            breakpoints,
        }
    }

    pub fn load(name: &str) -> Fixture {
        let path = format!("{}/tests/fixtures/{name}", env!("CARGO_MANIFEST_DIR"));
        Fixture::parse(&std::fs::read_to_string(&path).expect("fixture exists"))
    }
}

/// The real tracer dressed as a model: every state says 3 of 4 samples
/// agreed. Deterministic, needs no weights; the values are the real ones.
pub struct StandInModel {
    tracer: TracerDebugger,
}

impl StandInModel {
    pub fn new() -> StandInModel {
        StandInModel {
            tracer: TracerDebugger::new(TracerConfig::default()),
        }
    }

    fn dress(state: State) -> State {
        State {
            confidence: Some(Confidence {
                votes: 3,
                samples: 4,
                probability: None,
            }),
            ..state
        }
    }
}

impl Default for StandInModel {
    fn default() -> Self {
        StandInModel::new()
    }
}

impl Debugger for StandInModel {
    fn name(&self) -> String {
        "stand-in".to_string()
    }

    fn start(
        &self,
        source: &Source,
        entry_call: &str,
        cancel: &Cancel,
    ) -> Result<State, DebugError> {
        self.tracer
            .start(source, entry_call, cancel)
            .map(StandInModel::dress)
    }

    fn next(
        &self,
        session: &Session,
        action: Action,
        cancel: &Cancel,
    ) -> Result<State, DebugError> {
        self.tracer
            .next(session, action, cancel)
            .map(StandInModel::dress)
    }
}

/// Answers computed on demand and kept.
pub struct ComputedAnswers {
    pub model: Arc<dyn Debugger>,
    pub tracer: TracerDebugger,
    pub source: Arc<Source>,
    pub answers: Mutex<HashMap<Key, Arc<Answer>>>,
}

impl ComputedAnswers {
    pub fn new(source: &str) -> ComputedAnswers {
        ComputedAnswers {
            model: Arc::new(StandInModel::new()),
            tracer: TracerDebugger::new(TracerConfig::default()),
            source: ndb_inference::python::read_source(source),
            answers: Mutex::default(),
        }
    }

    /// Answers every key not answered yet.
    pub fn answer(&self, keys: &[Key]) {
        for key in keys {
            if self.answers.lock().unwrap().contains_key(key) {
                continue;
            }
            let model = self.model.clone();
            let auto = AutoDebugger::new(
                Arc::new(TracerDebugger::new(self.tracer.config().clone())),
                move || Ok(model.clone()),
            );
            let debugger: &dyn Debugger = match key.engine {
                ndb_lsp::engine::Backend::Model => &*self.model,
                ndb_lsp::engine::Backend::Tracer => &self.tracer,
                ndb_lsp::engine::Backend::Auto => &auto,
            };
            let answer =
                match answer_blocking(debugger, &self.tracer, key, &self.source, 4, &Cancel::new())
                {
                    Ok(answer) => answer,
                    Err(error) => Answer::Failed(ndb_lsp::engine::Failure::Debug(Arc::new(error))),
                };
            self.answers
                .lock()
                .unwrap()
                .insert(key.clone(), Arc::new(answer));
        }
    }
}

impl Answers for ComputedAnswers {
    fn cached(&self, key: &Key) -> Option<Arc<Answer>> {
        self.answers.lock().unwrap().get(key).cloned()
    }

    fn latest(&self, _: &Key) -> Option<(u64, Arc<Answer>)> {
        None
    }

    fn unavailable(&self) -> Option<ndb_lsp::engine::ModelUnavailable> {
        None
    }

    fn answerer(&self) -> String {
        self.model.name()
    }
}

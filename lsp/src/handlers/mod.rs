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

use ndb_inference::suggest;
use serde_json::{json, Value};

use crate::engine::{Answer, Engine, EngineKind, Key, ModelState, Question, SuggestPlan};
use crate::ide::Answers;
use crate::settings::OutputMode;

/// The engine's cache as the pure layer's [`Answers`].
pub struct EngineAnswers<'a>(pub &'a Engine);

impl Answers for EngineAnswers<'_> {
    fn cached(&self, key: &Key) -> Option<Arc<Answer>> {
        self.0.cached(key)
    }

    fn latest(&self, key: &Key) -> Option<(u64, Arc<Answer>)> {
        self.0.latest(key)
    }

    fn unavailable(&self) -> Option<String> {
        match self.0.model_state() {
            ModelState::Failed(reason) => Some(reason),
            _ => None,
        }
    }

    fn answerer(&self) -> String {
        self.0.model_name()
    }
}

/// A question key as JSON, for the `data` of hints and lenses (the hash as
/// a hex string: JSON numbers lose bits past 2^53).
pub fn key_to_json(key: &Key) -> Value {
    let question = match &key.question {
        Question::AtLine(line) => json!({"atLine": line}),
        Question::Output(mode) => json!({"output": match mode {
            OutputMode::StepReturn => "step_return",
            OutputMode::Breakpoint => "breakpoint",
            OutputMode::Rollout => "rollout",
        }}),
        Question::Suggest {
            function,
            output,
            plan,
        } => json!({
            "suggest": function,
            "output": output,
            "run": plan.run,
            "useModel": plan.use_model,
            "maxRuns": plan.budget.runs,
            "maxMs": plan.budget.time.as_millis() as u64,
            "seeds": plan.seeds.iter().map(|seed| json!([seed.input, match &seed.origin {
                suggest::Origin::EntryCall(kind) => kind.clone(),
                other => other.describe(),
            }])).collect::<Vec<_>>(),
        }),
        Question::Check { expected } => json!({"check": expected}),
    };
    json!({
        "hash": format!("{:016x}", key.source_hash),
        "entryCall": key.entry_call,
        "question": question,
        "engine": match key.engine {
            EngineKind::Model => "model",
            EngineKind::Tracer => "tracer",
            EngineKind::Auto => "auto",
        },
    })
}

/// The inverse of [`key_to_json`]; `None` for anything malformed.
pub fn key_from_json(value: &Value) -> Option<Key> {
    let source_hash = u64::from_str_radix(value.get("hash")?.as_str()?, 16).ok()?;
    let entry_call = value.get("entryCall")?.as_str()?.to_string();
    let question = value.get("question")?;
    let question = if let Some(line) = question.get("atLine") {
        Question::AtLine(u32::try_from(line.as_u64()?).ok()?)
    } else if let Some(mode) = question.get("output") {
        Question::Output(match mode.as_str()? {
            "breakpoint" => OutputMode::Breakpoint,
            "rollout" => OutputMode::Rollout,
            _ => OutputMode::StepReturn,
        })
    } else if let Some(function) = question.get("suggest") {
        let flag = |name: &str| question.get(name).and_then(Value::as_bool);
        let number = |name: &str| question.get(name).and_then(Value::as_u64);
        let default = suggest::Budget::default();
        let seeds = match question.get("seeds") {
            Some(Value::Array(seeds)) => seeds
                .iter()
                .filter_map(|seed| {
                    Some(suggest::Seed {
                        input: seed.get(0)?.as_str()?.to_string(),
                        origin: suggest::Origin::EntryCall(seed.get(1)?.as_str()?.to_string()),
                    })
                })
                .collect(),
            _ => Vec::new(),
        };
        Question::Suggest {
            function: function.as_str()?.to_string(),
            output: question
                .get("output")
                .and_then(Value::as_str)
                .map(str::to_string),
            plan: SuggestPlan {
                run: flag("run").unwrap_or(false),
                use_model: flag("useModel").unwrap_or(true),
                budget: suggest::Budget {
                    runs: number("maxRuns").map_or(default.runs, |n| n as usize),
                    time: number("maxMs").map_or(default.time, std::time::Duration::from_millis),
                },
                seeds,
            },
        }
    } else {
        Question::Check {
            expected: question.get("check")?.as_str()?.to_string(),
        }
    };
    let engine = match value.get("engine")?.as_str()? {
        "tracer" => EngineKind::Tracer,
        "auto" => EngineKind::Auto,
        _ => EngineKind::Model,
    };
    Some(Key {
        source_hash,
        entry_call,
        question,
        engine,
    })
}

/// The samples per question: the setting, else the model's own.
pub fn samples(server: &crate::server::Server, settings: &crate::settings::Settings) -> usize {
    settings
        .samples
        .unwrap_or_else(|| server.engine.samples())
        .max(1)
}

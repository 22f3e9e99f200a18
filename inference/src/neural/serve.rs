//! `ndb serve`: one loaded model (or pair) for a team, over HTTP.
//!
//! `POST /v1/completions` is OpenAI's completions API as mistral.rs's own
//! server reads it (`mistralrs_server_core::openai::CompletionRequest`:
//! `grammar` with a Lark grammar, `top_k`, `min_p`, the DRY settings), run
//! by the same engine and request path as a question asked in process, so
//! `ndb predict --server URL` gets the same tokens with the same
//! log-probabilities (mistral.rs's convention: base 10) as `ndb predict`.
//! Its `model` picks the model: `language` (also `default`), or
//! `assertions` for a pair's code model. A `stop` whose strings are each one
//! token of the vocabulary stops at those token ids, as in process.
//! (mistral.rs's router itself cannot be mounted: `mistralrs::Model` 0.8.1
//! does not hand out the shared engine its router takes.)
//!
//! Beside it: `GET /v1/models` (OpenAI's list), `GET /ndb/v1/models` (the
//! models and forms, [`remote::ServedModels`]), `POST /ndb/v1/tokenize`, and
//! `GET /health`. Every question runs on a blocking thread, so a slow
//! generation never holds the server's other requests.

use std::sync::Arc;

use axum::extract::rejection::JsonRejection;
use axum::extract::State;
use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};
use axum::routing::{get, post};
use axum::{Json, Router};
use mistralrs::{Constraint, DrySamplingParams, SamplingParams, StopTokens};
use mistralrs_server_core::openai::{CompletionRequest, Grammar, StopTokens as RequestStops};

use super::remote::{self, ServedModel, ServedModels, TokenizeRequest, TokenizeResponse};
use super::{block_on, Engine, NeuralDebugger, Runner};
use crate::debugger::{Cancel, DebugError};

/// The routes over `debugger`.
pub fn router(debugger: Arc<NeuralDebugger>) -> Router {
    Router::new()
        .route("/v1/completions", post(completions))
        .route("/v1/models", get(openai_models))
        .route("/ndb/v1/models", get(models))
        .route("/ndb/v1/tokenize", post(tokenize))
        .route("/health", get(|| async { "ok" }))
        .with_state(debugger)
}

/// Serves `debugger` on `listener` until the process ends. A pair's second
/// model is loaded first, so that a broken pair fails here and no request
/// waits for a load.
pub async fn serve(
    debugger: Arc<NeuralDebugger>,
    listener: tokio::net::TcpListener,
) -> std::io::Result<()> {
    let loading = debugger.clone();
    tokio::task::spawn_blocking(move || loading.assertion_engine().map(|_| ()))
        .await
        .map_err(std::io::Error::other)?
        .map_err(std::io::Error::other)?;
    axum::serve(listener, router(debugger)).await
}

/// An error answer: `{"error": {"message": ...}}`.
fn error(status: StatusCode, message: impl Into<String>) -> Response {
    let body = serde_json::json!({ "error": { "message": message.into() } });
    (status, Json(body)).into_response()
}

async fn models(State(debugger): State<Arc<NeuralDebugger>>) -> Json<ServedModels> {
    Json(debugger.served_models())
}

async fn openai_models(State(debugger): State<Arc<NeuralDebugger>>) -> Json<serde_json::Value> {
    let data: Vec<serde_json::Value> = debugger
        .served_models()
        .models
        .iter()
        .map(|model| serde_json::json!({ "id": model.id, "object": "model", "owned_by": "ndb" }))
        .collect();
    Json(serde_json::json!({ "object": "list", "data": data }))
}

async fn tokenize(
    State(debugger): State<Arc<NeuralDebugger>>,
    request: Result<Json<TokenizeRequest>, JsonRejection>,
) -> Response {
    let Json(request) = match request {
        Ok(request) => request,
        Err(rejection) => return error(StatusCode::BAD_REQUEST, rejection.body_text()),
    };
    answer_blocking(move || {
        let engine = debugger.served_engine(&request.model)?;
        let tokens = debugger.tokens(engine, &request.text)?;
        Ok(TokenizeResponse { tokens })
    })
    .await
}

async fn completions(
    State(debugger): State<Arc<NeuralDebugger>>,
    request: Result<Json<CompletionRequest>, JsonRejection>,
) -> Response {
    let Json(request) = match request {
        Ok(request) => request,
        Err(rejection) => return error(StatusCode::BAD_REQUEST, rejection.body_text()),
    };
    if request.stream == Some(true) {
        return error(
            StatusCode::BAD_REQUEST,
            "ndb serve answers whole completions only (no `stream`)",
        );
    }
    answer_blocking(move || debugger.complete(request)).await
}

/// Runs `work` (a question, which blocks) on a thread of its own and answers
/// with its JSON or its error.
async fn answer_blocking<T, F>(work: F) -> Response
where
    T: serde::Serialize + Send + 'static,
    F: FnOnce() -> Result<T, Served> + Send + 'static,
{
    match tokio::task::spawn_blocking(work).await {
        Ok(Ok(answer)) => Json(answer).into_response(),
        Ok(Err(served)) => served.into_response(),
        Err(panic) => error(StatusCode::INTERNAL_SERVER_ERROR, panic.to_string()),
    }
}

/// Why a request was refused or failed.
enum Served {
    NoSuchModel(String),
    Invalid(String),
    Failed(DebugError),
}

impl IntoResponse for Served {
    fn into_response(self) -> Response {
        match self {
            Served::NoSuchModel(id) => error(
                StatusCode::NOT_FOUND,
                format!("no model `{id}` here (GET /ndb/v1/models lists them)"),
            ),
            Served::Invalid(message) => error(StatusCode::UNPROCESSABLE_ENTITY, message),
            Served::Failed(failure) => {
                error(StatusCode::INTERNAL_SERVER_ERROR, failure.to_string())
            }
        }
    }
}

impl NeuralDebugger {
    /// What this debugger serves.
    fn served_models(&self) -> ServedModels {
        let served = |id: &str, engine: &Engine| ServedModel {
            id: id.to_string(),
            name: engine.info.name.clone(),
            context_tokens: engine.info.context_tokens,
            weight_bytes: engine.info.weight_bytes,
        };
        let mut models = vec![served(remote::LANGUAGE_ID, &self.language)];
        if self.assertions.is_some() {
            if let Ok(engine) = self.assertion_engine() {
                models.push(served(remote::ASSERTIONS_ID, engine));
            }
        }
        ServedModels {
            ndb: env!("CARGO_PKG_VERSION").to_string(),
            name: self.name.clone(),
            forms: format!(
                "step_return={},inv_step_call={}",
                self.forms.step_return.name(),
                self.forms.inv_step_call.name()
            ),
            models,
        }
    }

    fn served_engine(&self, id: &str) -> Result<&Engine, Served> {
        match id {
            remote::LANGUAGE_ID | "default" => Ok(&self.language),
            remote::ASSERTIONS_ID if self.assertions.is_some() => {
                self.assertion_engine().map_err(Served::Failed)
            }
            other => Err(Served::NoSuchModel(other.to_string())),
        }
    }

    fn tokens(&self, engine: &Engine, text: &str) -> Result<Vec<u32>, Served> {
        block_on(self.runtime(), || engine.model.tokenize(text))
            .map_err(|panic| Served::Failed(panic.into()))?
            .map_err(|error| Served::Failed(DebugError::Engine(error.to_string())))
    }

    /// One completion request, asked as [`NeuralDebugger::request`] asks
    /// in process.
    fn complete(
        &self,
        request: CompletionRequest,
    ) -> Result<mistralrs::CompletionResponse, Served> {
        let engine = self.served_engine(&request.model)?;
        if let Runner::Remote(endpoint) = &engine.model {
            return Err(Served::Invalid(format!(
                "this server asks {} itself; ask that server",
                endpoint.url
            )));
        }
        let stop_toks = match request.stop_seqs {
            None => None,
            Some(stops) => {
                let names = match stops {
                    RequestStops::Multi(names) => names,
                    RequestStops::Single(name) => vec![name],
                };
                let mut ids = Vec::new();
                for name in &names {
                    if let [id] = self.tokens(engine, name)?.as_slice() {
                        ids.push(*id);
                    }
                }
                Some(if ids.len() == names.len() {
                    StopTokens::Ids(ids)
                } else {
                    StopTokens::Seqs(names)
                })
            }
        };
        let dry_params = request.dry_multiplier.map(|multiplier| {
            let defaults = DrySamplingParams::default();
            DrySamplingParams {
                multiplier,
                base: request.dry_base.unwrap_or(defaults.base),
                allowed_length: request
                    .dry_allowed_length
                    .unwrap_or(defaults.allowed_length),
                sequence_breakers: request
                    .dry_sequence_breakers
                    .unwrap_or(defaults.sequence_breakers),
            }
        });
        let sampling = SamplingParams {
            temperature: request.temperature,
            top_k: request.top_k,
            top_p: request.top_p,
            min_p: request.min_p,
            top_n_logprobs: request.logprobs.unwrap_or(0),
            frequency_penalty: request.frequency_penalty,
            presence_penalty: request.presence_penalty,
            repetition_penalty: request.repetition_penalty,
            stop_toks,
            max_len: request.max_tokens,
            logits_bias: request.logit_bias,
            n_choices: request.n_choices.max(1),
            dry_params,
        };
        let constraint = match request.grammar {
            None => Constraint::None,
            Some(Grammar::Lark(grammar)) => Constraint::Lark(grammar),
            Some(Grammar::Regex(regex)) => Constraint::Regex(regex),
            Some(Grammar::JsonSchema(schema)) => Constraint::JsonSchema(schema),
            Some(Grammar::Llguidance(grammar)) => Constraint::Llguidance(grammar),
        };
        self.request(engine, request.prompt, constraint, sampling, &Cancel::new())
            .map_err(Served::Failed)
    }
}

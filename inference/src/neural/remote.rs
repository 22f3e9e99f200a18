//! Asking a model served by `ndb serve` instead of loading one
//! (`--server URL`): the same prompts and grammar as in process, sent as
//! OpenAI-style completion requests, and the answer's tokens with their
//! log-probabilities read back into the very response type the engine gives
//! in process, so votes and confidences are computed by the same code.
//!
//! The wire, besides `POST /v1/completions` (mistral.rs's request type,
//! grammar and all, see [`super::serve`]):
//! - `GET /ndb/v1/models`: which models the server holds ([`ServedModels`]);
//! - `POST /ndb/v1/tokenize`: a text's token ids by one model's tokenizer
//!   (prompts are fitted to the context, and the special tokens checked,
//!   as in process).

use std::time::Duration;

use mistralrs::{Constraint, SamplingParams};
use serde::{Deserialize, Serialize};

/// What `GET /ndb/v1/models` answers.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ServedModels {
    /// The serving ndb's version.
    pub ndb: String,
    /// What the served debugger is called (as `ndb` reports a model).
    pub name: String,
    /// The forms the served model (or pair) was loaded with
    /// (`step_return=best,...`).
    pub forms: String,
    /// The model asked in the text language (`id` `language`) and, for a
    /// pair, the one asked the assertions (`id` `assertions`).
    pub models: Vec<ServedModel>,
}

/// One model a server holds.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ServedModel {
    /// The `model` of a completion request that reaches it.
    pub id: String,
    pub name: String,
    pub context_tokens: Option<usize>,
    pub weight_bytes: u64,
}

/// Ids of the served models.
pub const LANGUAGE_ID: &str = "language";
pub const ASSERTIONS_ID: &str = "assertions";

#[derive(Serialize, Deserialize)]
pub struct TokenizeRequest {
    pub model: String,
    pub text: String,
}

#[derive(Serialize, Deserialize)]
pub struct TokenizeResponse {
    pub tokens: Vec<u32>,
}

/// Why a served model could not be asked. Every message names the URL.
#[derive(Debug, thiserror::Error)]
pub enum RemoteError {
    #[error("the model server at {url} cannot be reached: {cause}")]
    Unreachable { url: String, cause: String },
    #[error("the model server at {url} did not answer within {seconds} s")]
    Timeout { url: String, seconds: u64 },
    #[error("the model server at {url} answered {status}: {body}")]
    Status {
        url: String,
        status: u16,
        body: String,
    },
    #[error("the model server at {url} sent an answer ndb cannot read ({what})")]
    Malformed { url: String, what: String },
    #[error(
        "{url} is not an ndb model server (GET /ndb/v1/models answered {status}); \
         start one with `ndb serve --addr HOST:PORT`"
    )]
    NotNdb { url: String, status: u16 },
    #[error("the model server at {url} serves no model `{id}` (it has: {has})")]
    NoSuchModel {
        url: String,
        id: String,
        has: String,
    },
}

/// A served model's endpoint.
#[derive(Clone, Debug)]
pub struct Endpoint {
    /// The server's base URL, without a trailing `/`.
    pub url: String,
    /// The model's id on it.
    pub model: String,
    client: reqwest::Client,
    timeout: Duration,
}

/// A connection's first check: the server's models.
pub async fn served_models(url: &str, timeout: Duration) -> Result<ServedModels, RemoteError> {
    let url = url.trim_end_matches('/').to_string();
    let client = client(timeout);
    let response = send(&url, timeout, client.get(format!("{url}/ndb/v1/models"))).await?;
    let status = response.status().as_u16();
    if status == 404 {
        return Err(RemoteError::NotNdb { url, status });
    }
    let body = read_body(&url, timeout, response).await?;
    if !(200..300).contains(&status) {
        return Err(RemoteError::NotNdb { url, status });
    }
    serde_json::from_str(&body).map_err(|error| RemoteError::Malformed {
        url,
        what: format!("its model list: {error}"),
    })
}

fn client(timeout: Duration) -> reqwest::Client {
    reqwest::Client::builder()
        .connect_timeout(Duration::from_secs(5).min(timeout))
        .build()
        .unwrap_or_default()
}

async fn send(
    url: &str,
    timeout: Duration,
    request: reqwest::RequestBuilder,
) -> Result<reqwest::Response, RemoteError> {
    let error = |error: reqwest::Error| classify(url, timeout, error);
    match tokio::time::timeout(timeout, request.send()).await {
        Ok(response) => response.map_err(error),
        Err(_) => Err(RemoteError::Timeout {
            url: url.to_string(),
            seconds: timeout.as_secs(),
        }),
    }
}

async fn read_body(
    url: &str,
    timeout: Duration,
    response: reqwest::Response,
) -> Result<String, RemoteError> {
    match tokio::time::timeout(timeout, response.text()).await {
        Ok(text) => text.map_err(|error| classify(url, timeout, error)),
        Err(_) => Err(RemoteError::Timeout {
            url: url.to_string(),
            seconds: timeout.as_secs(),
        }),
    }
}

fn classify(url: &str, timeout: Duration, error: reqwest::Error) -> RemoteError {
    if error.is_timeout() {
        return RemoteError::Timeout {
            url: url.to_string(),
            seconds: timeout.as_secs(),
        };
    }
    let mut cause = error.to_string();
    let mut source = std::error::Error::source(&error);
    while let Some(inner) = source {
        cause = format!("{cause}: {inner}");
        source = inner.source();
    }
    if error.is_connect() {
        RemoteError::Unreachable {
            url: url.to_string(),
            cause,
        }
    } else {
        RemoteError::Malformed {
            url: url.to_string(),
            what: cause,
        }
    }
}

/// The completion request as mistral.rs's server reads it (`CompletionRequest`).
#[derive(Serialize)]
struct CompletionBody<'a> {
    model: &'a str,
    prompt: &'a str,
    max_tokens: Option<usize>,
    n: usize,
    temperature: Option<f64>,
    top_k: Option<usize>,
    top_p: Option<f64>,
    min_p: Option<f64>,
    /// Always set: the tokens' log-probabilities come back (the value is
    /// how many alternatives each token lists, 0 as in process).
    logprobs: usize,
    #[serde(skip_serializing_if = "Option::is_none")]
    stop: Option<&'a [String]>,
    #[serde(skip_serializing_if = "Option::is_none")]
    grammar: Option<GrammarBody<'a>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    dry_multiplier: Option<f32>,
    #[serde(skip_serializing_if = "Option::is_none")]
    dry_base: Option<f32>,
    #[serde(skip_serializing_if = "Option::is_none")]
    dry_allowed_length: Option<usize>,
    #[serde(skip_serializing_if = "Option::is_none")]
    dry_sequence_breakers: Option<&'a [String]>,
}

#[derive(Serialize)]
#[serde(tag = "type", content = "value")]
enum GrammarBody<'a> {
    #[serde(rename = "lark")]
    Lark(&'a str),
}

/// The parts of a completion response the engine reads.
#[derive(Deserialize)]
struct CompletionAnswer {
    choices: Vec<ChoiceAnswer>,
    #[serde(default)]
    usage: Option<UsageAnswer>,
}

#[derive(Deserialize)]
struct ChoiceAnswer {
    text: String,
    finish_reason: String,
    #[serde(default)]
    index: usize,
    logprobs: Option<LogprobsAnswer>,
}

#[derive(Deserialize)]
struct LogprobsAnswer {
    content: Option<Vec<TokenAnswer>>,
}

#[derive(Deserialize)]
struct TokenAnswer {
    token: String,
    logprob: f32,
}

#[derive(Deserialize, Default)]
#[serde(default)]
struct UsageAnswer {
    completion_tokens: usize,
    prompt_tokens: usize,
    total_tokens: usize,
    avg_tok_per_sec: f32,
    avg_prompt_tok_per_sec: f32,
    avg_compl_tok_per_sec: f32,
    total_time_sec: f32,
    total_prompt_time_sec: f32,
    total_completion_time_sec: f32,
}

impl Endpoint {
    /// The endpoint of model `id` of the server at `url`.
    pub fn new(url: &str, id: &str, timeout: Duration) -> Endpoint {
        Endpoint {
            url: url.trim_end_matches('/').to_string(),
            model: id.to_string(),
            client: client(timeout),
            timeout,
        }
    }

    async fn post(&self, path: &str, body: String) -> Result<String, RemoteError> {
        let request = self
            .client
            .post(format!("{}{path}", self.url))
            .header("content-type", "application/json")
            .body(body);
        let response = send(&self.url, self.timeout, request).await?;
        let status = response.status().as_u16();
        let text = read_body(&self.url, self.timeout, response).await?;
        if !(200..300).contains(&status) {
            return Err(RemoteError::Status {
                url: self.url.clone(),
                status,
                body: error_message(&text),
            });
        }
        Ok(text)
    }

    fn malformed(&self, what: String) -> RemoteError {
        RemoteError::Malformed {
            url: self.url.clone(),
            what,
        }
    }

    /// Token ids of `text` by the served model's tokenizer.
    pub async fn tokenize(&self, text: &str) -> Result<Vec<u32>, RemoteError> {
        let request = TokenizeRequest {
            model: self.model.clone(),
            text: text.to_string(),
        };
        let body =
            serde_json::to_string(&request).map_err(|error| self.malformed(error.to_string()))?;
        let answer = self.post("/ndb/v1/tokenize", body).await?;
        let answer: TokenizeResponse = serde_json::from_str(&answer)
            .map_err(|error| self.malformed(format!("a tokenization: {error}")))?;
        Ok(answer.tokens)
    }

    /// One completion: `prompt` under `constraint`, sampled by `sampling`,
    /// stopping at `stop` (token names, each one token of the vocabulary).
    pub async fn complete(
        &self,
        prompt: &str,
        constraint: &Constraint,
        sampling: &SamplingParams,
        stop: &[String],
    ) -> Result<mistralrs::CompletionResponse, RemoteError> {
        let grammar = match constraint {
            Constraint::None => None,
            Constraint::Lark(grammar) => Some(GrammarBody::Lark(grammar)),
            _ => return Err(self.malformed("a constraint other than Lark".to_string())),
        };
        let dry = sampling.dry_params.as_ref();
        let body = CompletionBody {
            model: &self.model,
            prompt,
            max_tokens: sampling.max_len,
            n: sampling.n_choices,
            temperature: sampling.temperature,
            top_k: sampling.top_k,
            top_p: sampling.top_p,
            min_p: sampling.min_p,
            logprobs: sampling.top_n_logprobs,
            stop: sampling.stop_toks.as_ref().map(|_| stop),
            grammar,
            dry_multiplier: dry.map(|dry| dry.multiplier),
            dry_base: dry.map(|dry| dry.base),
            dry_allowed_length: dry.map(|dry| dry.allowed_length),
            dry_sequence_breakers: dry.map(|dry| dry.sequence_breakers.as_slice()),
        };
        let body =
            serde_json::to_string(&body).map_err(|error| self.malformed(error.to_string()))?;
        let answer = self.post("/v1/completions", body).await?;
        let answer: CompletionAnswer = serde_json::from_str(&answer)
            .map_err(|error| self.malformed(format!("a completion: {error}")))?;
        if answer.choices.is_empty() {
            return Err(self.malformed("a completion without choices".to_string()));
        }
        Ok(into_response(answer, &self.model))
    }
}

/// The message of an error answer (`{"message": ...}` or
/// `{"error": {"message": ...}}`), else the start of its text.
fn error_message(text: &str) -> String {
    let value: Option<serde_json::Value> = serde_json::from_str(text).ok();
    let message = value.as_ref().and_then(|value| {
        value
            .get("message")
            .or_else(|| value.get("error").and_then(|error| error.get("message")))
            .and_then(|message| message.as_str())
            .map(str::to_string)
    });
    message.unwrap_or_else(|| text.chars().take(300).collect())
}

fn into_response(answer: CompletionAnswer, model: &str) -> mistralrs::CompletionResponse {
    let usage = answer.usage.unwrap_or_default();
    mistralrs::CompletionResponse {
        id: String::new(),
        choices: answer
            .choices
            .into_iter()
            .map(|choice| mistralrs_core::CompletionChoice {
                finish_reason: choice.finish_reason,
                index: choice.index,
                text: choice.text,
                logprobs: choice.logprobs.map(|logprobs| mistralrs::Logprobs {
                    content: logprobs.content.map(|tokens| {
                        tokens
                            .into_iter()
                            .map(|token| mistralrs_core::ResponseLogprob {
                                token: token.token,
                                logprob: token.logprob,
                                bytes: None,
                                top_logprobs: Vec::new(),
                            })
                            .collect()
                    }),
                }),
            })
            .collect(),
        created: 0,
        model: model.to_string(),
        system_fingerprint: String::new(),
        object: "text_completion".to_string(),
        usage: mistralrs::Usage {
            completion_tokens: usage.completion_tokens,
            prompt_tokens: usage.prompt_tokens,
            total_tokens: usage.total_tokens,
            avg_tok_per_sec: usage.avg_tok_per_sec,
            avg_prompt_tok_per_sec: usage.avg_prompt_tok_per_sec,
            avg_compl_tok_per_sec: usage.avg_compl_tok_per_sec,
            total_time_sec: usage.total_time_sec,
            total_prompt_time_sec: usage.total_prompt_time_sec,
            total_completion_time_sec: usage.total_completion_time_sec,
        },
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_error_answer_is_read_for_its_message() {
        assert_eq!(
            error_message(r#"{"message": "no such model"}"#),
            "no such model"
        );
        assert_eq!(
            error_message(r#"{"error": {"message": "grammar does not parse"}}"#),
            "grammar does not parse"
        );
        assert_eq!(error_message("<html>502</html>"), "<html>502</html>");
    }

    #[test]
    fn a_request_carries_the_grammar_the_sampling_and_zero_alternatives() {
        let sampling = SamplingParams {
            temperature: Some(1.0),
            max_len: Some(64),
            stop_toks: Some(mistralrs::StopTokens::Ids(vec![2])),
            ..SamplingParams::deterministic()
        };
        let body = CompletionBody {
            model: "language",
            prompt: "p",
            max_tokens: sampling.max_len,
            n: sampling.n_choices,
            temperature: sampling.temperature,
            top_k: sampling.top_k,
            top_p: None,
            min_p: None,
            logprobs: sampling.top_n_logprobs,
            stop: Some(&["<|endoftext|>".to_string()]),
            grammar: Some(GrammarBody::Lark("start: \"a\"")),
            dry_multiplier: None,
            dry_base: None,
            dry_allowed_length: None,
            dry_sequence_breakers: None,
        };
        let json: serde_json::Value = serde_json::to_value(&body).unwrap();
        assert_eq!(json["grammar"]["type"], "lark");
        assert_eq!(json["grammar"]["value"], "start: \"a\"");
        assert_eq!(json["top_k"], 1);
        assert_eq!(json["logprobs"], 0);
        assert_eq!(json["stop"][0], "<|endoftext|>");
        assert!(json.get("dry_multiplier").is_none());
    }
}

//! The neural debugger: a language model served in process by mistral.rs
//! that writes the next state in the text language, constrained by the Lark
//! grammar of `ndb-grammar`, sampled k times with a majority vote.
//!
//! Loading is fully offline: a Hugging Face style directory (`config.json`,
//! `*.safetensors`, `tokenizer.json`) or a GGUF file (or a directory holding
//! one). mistral.rs 0.8 traps this module steps around:
//!
//! - a path that does not exist silently becomes a hub download: paths are
//!   checked first and the token source is `None`;
//! - GGUF loading prints to stdout: front ends call
//!   [`crate::stdio::reserve_stdout`] before loading;
//! - greedy decoding is `top_k = 1`;
//! - without an EOS token generation runs to the length limit: answers are
//!   bounded by [`ModelSpec::max_new_tokens`] and a cut-off answer is
//!   reported as such, never guessed;
//! - completion requests (no chat template) carry the text language, and the
//!   special tokens that `choice.text` drops are put back from the per-token
//!   log-probabilities.
//!
//! A model whose tokenizer has all the text language's special tokens reads
//! and writes them as single tokens. A model whose tokenizer has none of them
//! (a pretrained base model such as SmolLM2-135M) reads and writes them
//! spelled out as text. A tokenizer with only some of them is an error.

mod decode;
mod direct;
pub(crate) mod prompt;
pub mod remote;
pub mod serve;

pub use direct::{Form, Forms};

use std::future::Future;
use std::hash::{Hash, Hasher};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;
use std::time::Instant;

use either::Either;
use mistralrs::{
    Constraint, DrySamplingParams, GgufModelBuilder, Model, ModelDType, NormalLoaderType,
    NormalRequest, Request, RequestMessage, Response, SamplingParams, StopTokens, TextModelBuilder,
    TokenSource,
};
use ndb_grammar::locate::Locator;
use ndb_grammar::text::{delta_base, prompt_prefix, text_action, ACTION_SEP, SPECIAL_TOKENS};
use ndb_grammar::{lark, Action, EventKind, Source, StateView, TextEvent};
use ndb_grammar::{TextAction, TextState, TextTrajectory};

use crate::cache::{Cache, CacheStats};
use crate::debugger::{Cancel, Confidence, DebugError, Debugger, Session, State};
use crate::tracer::TracerConfig;
use decode::{merge_special_tokens, sequence_probability, vote, Candidate, Rejected, Sample};

/// Names of end-of-sequence tokens: generation stops at whichever the
/// tokenizer has (the grammar is complete there), and the answer's text
/// leaves it out.
const END_OF_SEQUENCE: [&str; 5] = [
    "<|endoftext|>",
    "<|end_of_text|>",
    "</s>",
    "<eos>",
    "<|im_end|>",
];

/// `text` without the end-of-sequence tokens it ends with.
fn strip_end_of_sequence(mut text: &str) -> &str {
    while let Some(name) = END_OF_SEQUENCE.iter().find(|name| text.ends_with(*name)) {
        text = &text[..text.len() - name.len()];
    }
    text
}

/// Which model to load and how to ask it.
#[derive(Clone, Debug, PartialEq)]
pub struct ModelSpec {
    /// A model directory or GGUF file; `None` is the shipped default
    /// ([`default_model_path`]).
    pub path: Option<PathBuf>,
    /// Answers sampled per question (k); 1 is greedy.
    pub samples: usize,
    /// Sampling temperature when `samples > 1`.
    pub temperature: f64,
    /// The longest answer, in tokens; a longer one is reported as cut off.
    pub max_new_tokens: usize,
    /// CPU threads for the model; `None` uses every core.
    pub threads: Option<usize>,
    /// Run on a CUDA GPU (needs the `cuda` feature).
    pub gpu: bool,
    /// How the weights of a model directory are held in memory.
    pub weights: Weights,
    /// How entry calls are bound without running code (its `python`).
    pub tracer: TracerConfig,
    /// How the jumps that have an assertion form are asked; `None` chooses
    /// by the model ([`Forms::for_model`]).
    pub forms: Option<Forms>,
    /// Ask the model `ndb serve` serves at this URL instead of loading one
    /// (`path`, `threads`, `gpu` and `weights` are the server's then).
    pub server: Option<String>,
    /// How long one request to `server` may take.
    pub server_timeout: std::time::Duration,
}

impl Default for ModelSpec {
    fn default() -> ModelSpec {
        ModelSpec {
            path: None,
            samples: 1,
            temperature: 0.8,
            max_new_tokens: 256,
            threads: None,
            gpu: false,
            weights: Weights::default(),
            tracer: TracerConfig::default(),
            forms: None,
            server: None,
            server_timeout: std::time::Duration::from_secs(120),
        }
    }
}

/// How a model directory's float32 weights are held in memory: as they are,
/// in half precision (the whole model computes in it), or quantized once at
/// load (mistral.rs in-situ quantization) so that decoding, which reads
/// every weight per token, reads fewer bytes. A GGUF file keeps its own
/// format. The default is 8-bit: on a CPU with AVX2 (built with
/// `target-cpu=native`, `.cargo/config.toml`) it answers about twice as
/// fast as float32 with the same accuracy within noise
/// (`docs/neural-debugger.md`, "Benchmarks").
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum Weights {
    F32,
    /// IEEE half precision (the model and its activations).
    F16,
    /// 8-bit blocks (`Q8_0`).
    #[default]
    Q8,
    /// 4-bit blocks (`Q4_0`).
    Q4,
}

impl Weights {
    pub const NAMES: [&'static str; 4] = ["f32", "f16", "q8", "q4"];

    pub fn name(self) -> &'static str {
        match self {
            Weights::F32 => "f32",
            Weights::F16 => "f16",
            Weights::Q8 => "q8",
            Weights::Q4 => "q4",
        }
    }

    fn isq(self) -> Option<mistralrs::IsqType> {
        match self {
            Weights::F32 | Weights::F16 => None,
            Weights::Q8 => Some(mistralrs::IsqType::Q8_0),
            Weights::Q4 => Some(mistralrs::IsqType::Q4_0),
        }
    }

    /// The type the model's weights and activations are held in.
    fn dtype(self) -> ModelDType {
        match self {
            Weights::F16 => ModelDType::F16,
            Weights::F32 | Weights::Q8 | Weights::Q4 => ModelDType::F32,
        }
    }
}

impl std::str::FromStr for Weights {
    type Err = crate::choice::UnknownChoice;

    fn from_str(text: &str) -> Result<Weights, Self::Err> {
        match text {
            "f32" => Ok(Weights::F32),
            "f16" => Ok(Weights::F16),
            "q8" => Ok(Weights::Q8),
            "q4" => Ok(Weights::Q4),
            other => Err(crate::choice::UnknownChoice::new(
                "weight format",
                other,
                Weights::NAMES.join(", "),
            )),
        }
    }
}

/// Why a model could not be loaded.
#[derive(Debug, thiserror::Error)]
pub enum ModelError {
    #[error("no model at {0} (a model directory or a .gguf file was expected)")]
    NotFound(PathBuf),
    #[error(
        "no default model: looked at {looked}. Install it with `ndb models install` \
         (in a checkout, `bash .ci/setup --run` does it), set NDB_MODEL, or pass --model PATH"
    )]
    NoDefault { looked: String },
    #[error("{path} is not a model: {reason}")]
    Unrecognised { path: PathBuf, reason: String },
    #[error("loading {path} failed: {reason}")]
    Load { path: PathBuf, reason: String },
    #[error(
        "the model's tokenizer has only some of the debugger's special tokens; missing: {missing}. \
         Train the tokenizer with all of them (inference/README.md)"
    )]
    SpecialTokens { missing: String },
    #[error("GPU requested, but {0}")]
    Gpu(String),
    #[error(transparent)]
    Server(#[from] remote::RemoteError),
    #[error("could not start the model runtime: {0}")]
    Runtime(#[from] std::io::Error),
}

pub use crate::models::default_model_path;

/// The layouts a model comes in.
#[derive(Clone, Debug, PartialEq, Eq)]
enum ModelFormat {
    Gguf {
        directory: PathBuf,
        file: String,
    },
    HuggingFace {
        directory: PathBuf,
        llama: bool,
    },
    /// A directory with [`PAIR_MANIFEST`]: one model for the text language
    /// and one for the questions asked as assertions, and the forms.
    Pair {
        language: PathBuf,
        assertions: PathBuf,
        forms: Option<Forms>,
    },
}

/// The file that makes a directory a pair of models: JSON with
/// `language` and `assertions` (paths, relative to the directory) and
/// optionally `forms` ([`Forms::parse`]'s text).
pub const PAIR_MANIFEST: &str = "ndb-models.json";

impl ModelFormat {
    fn detect(path: &Path) -> Result<ModelFormat, ModelError> {
        let unrecognised = |reason: &str| ModelError::Unrecognised {
            path: path.to_path_buf(),
            reason: reason.to_string(),
        };
        if !path.exists() {
            return Err(ModelError::NotFound(path.to_path_buf()));
        }
        let gguf = |file: &Path| {
            let directory = file
                .parent()
                .filter(|parent| !parent.as_os_str().is_empty())
                .unwrap_or(Path::new("."));
            ModelFormat::Gguf {
                directory: std::fs::canonicalize(directory)
                    .unwrap_or_else(|_| directory.to_path_buf()),
                file: file
                    .file_name()
                    .map(|name| name.to_string_lossy().into_owned())
                    .unwrap_or_default(),
            }
        };
        if path.is_file() {
            return if path.extension().is_some_and(|ext| ext == "gguf") {
                Ok(gguf(path))
            } else {
                Err(unrecognised("a file that is not .gguf"))
            };
        }
        let entries: Vec<PathBuf> = std::fs::read_dir(path)?
            .filter_map(|entry| entry.ok().map(|entry| entry.path()))
            .collect();
        let has = |name: &str| entries.iter().any(|entry| entry.ends_with(name));
        if has(PAIR_MANIFEST) {
            let text = std::fs::read_to_string(path.join(PAIR_MANIFEST))?;
            let manifest: serde_json::Value = serde_json::from_str(&text)
                .map_err(|error| unrecognised(&format!("{PAIR_MANIFEST} is not JSON: {error}")))?;
            let member = |key: &str| {
                manifest[key]
                    .as_str()
                    .map(|relative| path.join(relative))
                    .ok_or_else(|| unrecognised(&format!("{PAIR_MANIFEST} names no `{key}` model")))
            };
            let forms =
                match manifest["forms"].as_str() {
                    Some(text) => Some(Forms::parse(text).map_err(|error| {
                        unrecognised(&format!("{PAIR_MANIFEST}'s forms: {error}"))
                    })?),
                    None => None,
                };
            return Ok(ModelFormat::Pair {
                language: member("language")?,
                assertions: member("assertions")?,
                forms,
            });
        }
        if has("config.json") {
            if !has("tokenizer.json") {
                return Err(unrecognised("config.json without tokenizer.json"));
            }
            if !entries
                .iter()
                .any(|entry| entry.extension().is_some_and(|ext| ext == "safetensors"))
            {
                return Err(unrecognised("config.json without *.safetensors weights"));
            }
            let config = std::fs::read_to_string(path.join("config.json"))?;
            let config: serde_json::Value = serde_json::from_str(&config)
                .map_err(|error| unrecognised(&format!("config.json is not JSON: {error}")))?;
            let llama = config["architectures"]
                .as_array()
                .is_some_and(|list| list.iter().any(|a| a == "LlamaForCausalLM"))
                || config["model_type"] == "llama";
            if llama && config.get("rope_theta").is_none() {
                return Err(unrecognised(
                    "config.json lacks a top-level `rope_theta` (transformers 5 writes \
                     `rope_parameters`; add the top-level key)",
                ));
            }
            return Ok(ModelFormat::HuggingFace {
                directory: path.to_path_buf(),
                llama,
            });
        }
        let ggufs: Vec<&PathBuf> = entries
            .iter()
            .filter(|entry| entry.extension().is_some_and(|ext| ext == "gguf"))
            .collect();
        match ggufs.as_slice() {
            [file] => Ok(gguf(file)),
            [] => Err(unrecognised(
                "a directory with neither config.json nor a .gguf file",
            )),
            _ => Err(unrecognised(
                "a directory with several .gguf files: name one",
            )),
        }
    }
}

/// How the model's tokenizer carries the text language's special tokens.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SpecialTokenMode {
    /// Each special token is one token of the vocabulary.
    Tokens,
    /// The tokenizer has none: they are spelled out as text.
    Text,
}

/// Facts about a loaded model, for reports and benchmarks.
#[derive(Clone, Debug)]
pub struct ModelInfo {
    pub path: PathBuf,
    pub name: String,
    pub special_tokens: SpecialTokenMode,
    pub context_tokens: Option<usize>,
    pub load_seconds: f64,
    /// Size of the weights on disk, in bytes.
    pub weight_bytes: u64,
}

/// Throughput figures of the latest generation.
#[derive(Clone, Copy, Debug, Default)]
pub struct Throughput {
    pub prompt_tokens: usize,
    /// Seconds the engine spent on the prompt (less when its prefix cache
    /// held the start of it).
    pub prompt_seconds: f64,
    pub generated_tokens: usize,
    pub prompt_tokens_per_second: f64,
    pub generated_tokens_per_second: f64,
}

/// Where a model runs: loaded by mistral.rs in this process, or served by
/// `ndb serve` ([`remote`]).
enum Runner {
    Local(Model),
    Remote(remote::Endpoint),
}

impl Runner {
    /// Token ids of `text` by the model's tokenizer.
    async fn tokenize(&self, text: &str) -> Result<Vec<u32>, TokenizeError> {
        match self {
            Runner::Local(model) => model
                .tokenize(Either::Right(text.to_string()), None, false, false, None)
                .await
                .map_err(|error| TokenizeError::Local(error.to_string())),
            Runner::Remote(endpoint) => Ok(endpoint.tokenize(text).await?),
        }
    }
}

/// Why a text could not be tokenized.
#[derive(Debug, thiserror::Error)]
enum TokenizeError {
    /// mistral.rs gives its errors as text.
    #[error("{0}")]
    Local(String),
    #[error(transparent)]
    Remote(#[from] remote::RemoteError),
}

/// The vendored kernels' benchmark switches, read from the environment once
/// per process (at the first model load) and handed to the fork, which reads
/// no environment itself: `NDB_Q8_PROMPT_KERNEL=upstream|f32|q8|pairs` (a
/// prompt's 8-bit products), `NDB_ATTENTION=upstream` (upstream's CPU
/// attention), `NDB_FORWARD=caller` (each forward pass on the engine's
/// thread), `NDB_FAST_FORWARD=off` (every forced token a pass). Unset, the
/// defaults; they exist to measure the fork against upstream
/// (`docs/neural-debugger.md`, "Benchmarks").
pub fn benchmark_switches_from_env() {
    static ONCE: std::sync::Once = std::sync::Once::new();
    ONCE.call_once(|| {
        let is = |name: &str, value: &str| std::env::var(name).is_ok_and(|set| set == value);
        if let Ok(kernel) = std::env::var("NDB_Q8_PROMPT_KERNEL") {
            if !candle_core::quantized::k_quants::ndb_set_prompt_kernel(&kernel) {
                eprintln!(
                    "ndb: NDB_Q8_PROMPT_KERNEL={kernel} is none of upstream, f32, q8, pairs; \
                     the default kernel runs"
                );
            }
        }
        if is("NDB_ATTENTION", "upstream") {
            mistralrs_core::set_ndb_attention_upstream(true);
        }
        if is("NDB_FORWARD", "caller") {
            mistralrs_core::set_ndb_forward_on_caller(true);
        }
        if is("NDB_FAST_FORWARD", "off") {
            mistralrs_core::set_ndb_fast_forward(false);
        }
    });
}

/// A panic inside the model runtime, with its message.
#[derive(Debug, thiserror::Error)]
#[error("{0}")]
struct Panicked(String);

impl From<Panicked> for DebugError {
    fn from(Panicked(panic): Panicked) -> DebugError {
        DebugError::Panicked(panic)
    }
}

/// One model loaded by mistral.rs (or served) and what ndb knows of it.
struct Engine {
    model: Runner,
    info: ModelInfo,
    /// End-of-sequence tokens by the names llguidance forces when the
    /// grammar is complete: generation stops at them even when the model's
    /// own EOS is another token (SmolLM2-Instruct's is `<|im_end|>`).
    stop_ids: Vec<u32>,
    /// Their names, as a served model's requests carry them.
    stop_names: Vec<String>,
    /// The texts mistral.rs's prefix cache most likely holds: recent
    /// prompts, each followed by one of its answers (see
    /// [`NeuralDebugger::prefill`]).
    cached_texts: std::sync::Mutex<std::collections::VecDeque<String>>,
    /// How many finished sequences its prefix cache keeps.
    prefix_cache_sequences: usize,
}

impl Engine {
    /// Notes that the prefix cache now holds `prompt` followed by each of
    /// `answers` (mistral.rs caches a sequence when it ends).
    fn remember_cached(&self, prompt: &str, answers: impl Iterator<Item = String>) {
        if let Ok(mut texts) = self.cached_texts.lock() {
            for answer in answers {
                texts.push_front(format!("{prompt}{answer}"));
            }
            texts.truncate(self.prefix_cache_sequences);
        }
    }
}

/// A model loaded when it is first needed; a load that failed stays failed
/// (its message is every later question's answer).
struct LazyEngine {
    path: PathBuf,
    /// `None` for a served model, connected at start.
    format: Option<ModelFormat>,
    engine: std::sync::OnceLock<Result<Engine, ModelError>>,
}

/// The neural debugger: a loaded model (or a pair: one for the debugger's
/// text language, one for the questions asked as assertions) and a cache
/// of its answers.
pub struct NeuralDebugger {
    runtime: Option<tokio::runtime::Runtime>,
    /// The model asked in the text language.
    language: Engine,
    /// The model asked the questions that have an assertion form, when it
    /// is another one ([`ModelFormat::Pair`]): loaded when first asked, so
    /// that a session of single steps never waits for it.
    assertions: Option<LazyEngine>,
    spec: ModelSpec,
    /// What [`Debugger::name`] says: the model, or both of a pair.
    name: String,
    cache: Cache<u64, Arc<Vec<Candidate>>>,
    last_throughput: std::sync::Mutex<Throughput>,
    requests: AtomicUsize,
    /// How each jump with an assertion form is asked.
    forms: Forms,
}

/// How many finished sequences mistral.rs's prefix cache keeps for the
/// model asked in the text language (its default).
const PREFIX_CACHE_SEQUENCES: usize = 16;

/// The same for a pair's code model, asked only the jumps with an
/// assertion form: its prompts share the worked assertions, which one
/// cached sequence holds, and each cached sequence of Qwen2.5-Coder-1.5B
/// holds up to 30 MB of keys and values (sixteen took a session of CruxEval
/// questions from 2.6 GB to 3.2 GB at peak).
const CODE_MODEL_PREFIX_CACHE_SEQUENCES: usize = 4;

/// The least uncached prompt text (bytes, about 50 tokens) worth a prefill
/// request of its own before k samples: below it the request's own cost
/// exceeds what the k sequences save.
const PREFILL_WORTH_BYTES: usize = 200;

/// About how much of a new prompt [`NeuralDebugger::prefill_in_parts`]
/// computes in one pass: some 100 tokens, under two seconds for the
/// 1.5B code model on 2 cores.
const PREFILL_PART_BYTES: usize = 400;

/// Where [`NeuralDebugger::prefill_in_parts`] cuts `prefix` when its
/// first `done` bytes are cached: at the first line end at least
/// [`PREFILL_PART_BYTES`] after the last cut ('\n' is never inside a
/// character, and a tokenizer's pieces do not run on from a line end into
/// the next line's text), until less than [`PREFILL_WORTH_BYTES`] is left
/// (the question's own prompt computes that).
fn prefill_cuts(prefix: &str, mut done: usize) -> Vec<usize> {
    let mut cuts = Vec::new();
    while prefix.len().saturating_sub(done) >= PREFILL_WORTH_BYTES {
        let target = (done + PREFILL_PART_BYTES).min(prefix.len());
        let cut = prefix.as_bytes()[target..]
            .iter()
            .position(|&byte| byte == b'\n')
            .map_or(prefix.len(), |at| target + at + 1);
        cuts.push(cut);
        done = cut;
    }
    cuts
}

/// How many leading bytes `a` and `b` share, at a character boundary.
fn common_prefix_len(a: &str, b: &str) -> usize {
    a.char_indices()
        .zip(b.chars())
        .find(|((_, x), y)| x != y)
        .map_or(a.len().min(b.len()), |((at, _), _)| at)
}

/// Generations running now in this process, on every model: mistral.rs's
/// stop flag (`TERMINATE_ALL_NEXT_STEP`) is one static for every engine of
/// the process, so whether a cancel may raise it is a question about all of
/// them, not about one model's requests.
static IN_FLIGHT: AtomicUsize = AtomicUsize::new(0);

/// Counts a generation in, and out when it ends, however it ends.
struct InFlight;

impl InFlight {
    fn start() -> Self {
        IN_FLIGHT.fetch_add(1, Ordering::SeqCst);
        InFlight
    }
}

impl Drop for InFlight {
    fn drop(&mut self) {
        IN_FLIGHT.fetch_sub(1, Ordering::SeqCst);
    }
}

/// Stops a request nobody waits for any more and drains its answer.
///
/// mistral.rs 0.8.1 has no per-request cancel for a non-streaming request;
/// its engine-wide stop flag cancels every running sequence, so it is
/// raised only while this is the process's only generation. The scheduler
/// honours the flag only at a step where no sequence waits (and clears it
/// then): the k sequences of a sampled request can sit in two length
/// buckets, one waiting while the other generates, and a flag raised once
/// then goes unread until the first bucket has finished (15 s of k = 8
/// samples on two cores, seen in `ndb eval --task input --sources both`).
/// So it is raised again every few milliseconds until the answer arrives,
/// then cleared. The caller does not wait for any of this: a cancelled
/// question returns at once, whatever the engine is doing.
async fn stop_and_drain(mut receiver: tokio::sync::mpsc::Receiver<Response>, _counted: InFlight) {
    let mut raised = false;
    loop {
        if IN_FLIGHT.load(Ordering::SeqCst) == 1 {
            mistralrs_core::TERMINATE_ALL_NEXT_STEP.store(true, Ordering::SeqCst);
            raised = true;
        }
        tokio::select! {
            // One answer (a k-sample request answers once), or the engine
            // dropped the request.
            _ = receiver.recv() => break,
            () = tokio::time::sleep(std::time::Duration::from_millis(10)) => {}
        }
    }
    if raised {
        mistralrs_core::TERMINATE_ALL_NEXT_STEP.store(false, Ordering::SeqCst);
    }
}

impl Drop for NeuralDebugger {
    fn drop(&mut self) {
        // Dropping a runtime may block; inside another runtime that panics.
        if let Some(runtime) = self.runtime.take() {
            runtime.shutdown_background();
        }
    }
}

/// Runs the future `make` builds to completion on `runtime`, from a fresh
/// thread, so it works from plain threads and from async callers' blocking
/// threads alike, and a panic inside becomes an error.
fn block_on<M, F>(runtime: &tokio::runtime::Runtime, make: M) -> Result<F::Output, Panicked>
where
    M: FnOnce() -> F + Send,
    F: Future,
    F::Output: Send,
{
    std::thread::scope(|scope| {
        scope
            .spawn(|| runtime.block_on(make()))
            .join()
            .map_err(|panic| {
                Panicked(
                    panic
                        .downcast_ref::<String>()
                        .cloned()
                        .or_else(|| panic.downcast_ref::<&str>().map(|s| s.to_string()))
                        .unwrap_or_else(|| "unknown panic".to_string()),
                )
            })
    })
}

/// Tokens the engine may add to a prompt's own (a start of sequence), kept
/// free when a prompt's length in bytes is taken as a bound on its tokens.
const PROMPT_MARGIN_TOKENS: usize = 8;

/// Answers kept (each a few candidate states).
const CACHE_LIMIT: usize = 4096;

/// Whether a generation penalizes repeated token sequences.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Repeats {
    /// The model's own distribution (every answer but a retry).
    Free,
    /// DRY ("don't repeat yourself") with [`REPEAT_PENALTY`]: the retry of
    /// a greedy answer cut off at the token limit.
    Penalized,
}

/// DRY's multiplier for [`Repeats::Penalized`] (its base 1.75 and allowed
/// length 2 are mistral.rs's defaults): a repeat of n tokens past the
/// second loses 0.8 * 1.75^(n - 2) of its logit.
const REPEAT_PENALTY: f32 = 0.8;

/// Models loaded by this process so far (every front end shares one).
static LOADED: AtomicUsize = AtomicUsize::new(0);

/// How many times this process has loaded a model's weights.
pub fn loads_in_process() -> usize {
    LOADED.load(Ordering::Relaxed)
}

impl NeuralDebugger {
    /// Loads the model `spec` names (checking the path first: nothing is
    /// ever downloaded): one model, or both models of a pair.
    pub fn load(spec: &ModelSpec) -> Result<NeuralDebugger, ModelError> {
        benchmark_switches_from_env();
        if let Some(url) = &spec.server {
            return Self::connect(spec, url);
        }
        let path = match &spec.path {
            Some(path) => path.clone(),
            None => default_model_path()?,
        };
        let format = ModelFormat::detect(&path)?;
        if spec.gpu && !cfg!(feature = "cuda") {
            return Err(ModelError::Gpu(
                "this ndb was built without the `cuda` feature \
                 (cargo build --features ndb-inference/cuda)"
                    .to_string(),
            ));
        }
        if let Some(threads) = spec.threads.map(|threads| threads.max(1)) {
            // candle's CPU kernels run on rayon's global pool and split their
            // work by its size (the vendored `get_num_threads`); it is built
            // once per process, by the first model load that asks.
            let built = rayon::ThreadPoolBuilder::new()
                .num_threads(threads)
                .thread_name(|index| format!("ndb-cpu-{index}"))
                .build_global();
            if built.is_err() && rayon::current_num_threads() != threads {
                eprintln!(
                    "ndb: the CPU thread pool already runs {} threads; --threads {threads} \
                     takes effect at the next start",
                    rayon::current_num_threads()
                );
            }
        }
        let runtime = tokio::runtime::Builder::new_multi_thread()
            .worker_threads(1)
            .thread_name("ndb-model")
            .enable_all()
            .build()?;
        let (language, assertions, forms) = match format {
            ModelFormat::Pair {
                language,
                assertions,
                forms,
            } => {
                // The second model's path is checked now, so that a broken
                // pair is a load error, not a failure of some later question.
                let assertion_format = ModelFormat::detect(&assertions)?;
                let language_format = ModelFormat::detect(&language)?;
                let language = Self::load_engine(
                    &runtime,
                    &language,
                    &language_format,
                    spec,
                    PREFIX_CACHE_SEQUENCES,
                )?;
                let assertions = LazyEngine {
                    path: assertions,
                    format: Some(assertion_format),
                    engine: std::sync::OnceLock::new(),
                };
                (language, Some(assertions), forms)
            }
            format => (
                Self::load_engine(&runtime, &path, &format, spec, PREFIX_CACHE_SEQUENCES)?,
                None,
                None,
            ),
        };
        Ok(Self::assemble(runtime, language, assertions, forms, spec))
    }

    /// The debugger over its engines, the forms chosen.
    fn assemble(
        runtime: tokio::runtime::Runtime,
        language: Engine,
        assertions: Option<LazyEngine>,
        forms: Option<Forms>,
        spec: &ModelSpec,
    ) -> NeuralDebugger {
        let forms = spec
            .forms
            .or(forms)
            .unwrap_or_else(|| Forms::for_model(language.info.special_tokens));
        let name = match &assertions {
            Some(assertions) => format!(
                "{} (the text language) + {} (assertions)",
                language.info.name,
                model_name(&assertions.path)
            ),
            None => language.info.name.clone(),
        };
        LOADED.fetch_add(1, Ordering::Relaxed);
        NeuralDebugger {
            runtime: Some(runtime),
            language,
            assertions,
            spec: spec.clone(),
            name,
            cache: Cache::new(CACHE_LIMIT),
            last_throughput: std::sync::Mutex::new(Throughput::default()),
            requests: AtomicUsize::new(0),
            forms,
        }
    }

    /// The debugger of the model `ndb serve` serves at `url`: its models
    /// are checked (and their tokenizers asked what they carry) now, so a
    /// server that is down or is not ndb's is an error here, naming the
    /// URL.
    fn connect(spec: &ModelSpec, url: &str) -> Result<NeuralDebugger, ModelError> {
        let runtime = tokio::runtime::Builder::new_multi_thread()
            .worker_threads(1)
            .thread_name("ndb-model")
            .enable_all()
            .build()?;
        let timeout = spec.server_timeout;
        let served = block_on(&runtime, || remote::served_models(url, timeout)).map_err(
            |Panicked(panic)| ModelError::Load {
                path: PathBuf::from(url),
                reason: panic,
            },
        )??;
        let engine = |id: &str| -> Result<Engine, ModelError> {
            let model = served
                .models
                .iter()
                .find(|model| model.id == id)
                .ok_or_else(|| remote::RemoteError::NoSuchModel {
                    url: url.to_string(),
                    id: id.to_string(),
                    has: served
                        .models
                        .iter()
                        .map(|model| model.id.as_str())
                        .collect::<Vec<_>>()
                        .join(", "),
                })?;
            let started = Instant::now();
            let runner = Runner::Remote(remote::Endpoint::new(url, id, timeout));
            Self::engine(
                &runtime,
                runner,
                PathBuf::from(format!("{}#{id}", url.trim_end_matches('/'))),
                model.name.clone(),
                model.context_tokens,
                model.weight_bytes,
                started,
            )
        };
        let language = engine(remote::LANGUAGE_ID)?;
        let assertions = if served
            .models
            .iter()
            .any(|model| model.id == remote::ASSERTIONS_ID)
        {
            let assertions = engine(remote::ASSERTIONS_ID)?;
            Some(LazyEngine {
                path: assertions.info.path.clone(),
                format: None,
                engine: std::sync::OnceLock::from(Ok(assertions)),
            })
        } else {
            None
        };
        let forms = Forms::parse(&served.forms).ok();
        Ok(Self::assemble(runtime, language, assertions, forms, spec))
    }

    /// Loads one model file or directory, of the `format` detected at
    /// `path`, its prefix cache keeping `prefix_cache` finished sequences.
    fn load_engine(
        runtime: &tokio::runtime::Runtime,
        path: &Path,
        format: &ModelFormat,
        spec: &ModelSpec,
        prefix_cache: usize,
    ) -> Result<Engine, ModelError> {
        let path = path.to_path_buf();
        let started = Instant::now();
        let load_error = |reason: String| ModelError::Load {
            path: path.clone(),
            reason,
        };
        let force_cpu = !spec.gpu;
        let model = match format {
            ModelFormat::Pair { .. } => {
                return Err(ModelError::Unrecognised {
                    path: path.clone(),
                    reason: "a pair of models names another pair".to_string(),
                })
            }
            ModelFormat::Gguf { directory, file } => {
                // A GGUF keeps its own quantization: Q8_0 and the k-quants
                // (the Qwen2.5-Coder files) have SIMD kernels, and
                // dequantized a 0.5B model would take 2 GB.
                let mut builder = GgufModelBuilder::new(
                    directory.to_string_lossy().into_owned(),
                    vec![file.clone()],
                )
                .with_token_source(TokenSource::None)
                .with_prefix_cache_n(Some(prefix_cache));
                if force_cpu {
                    builder = builder.with_force_cpu();
                }
                block_on(runtime, || builder.build())
            }
            ModelFormat::HuggingFace { directory, llama } => {
                let mut builder = TextModelBuilder::new(directory.to_string_lossy().into_owned())
                    .with_token_source(TokenSource::None)
                    .with_prefix_cache_n(Some(prefix_cache))
                    .with_dtype(spec.weights.dtype());
                if *llama {
                    builder = builder.with_loader_type(NormalLoaderType::Llama);
                }
                if let Some(isq) = spec.weights.isq() {
                    builder = builder.with_isq(isq);
                }
                if force_cpu {
                    builder = builder.with_force_cpu();
                }
                block_on(runtime, || builder.build())
            }
        };
        let model = match model {
            Ok(Ok(model)) => model,
            Ok(Err(error)) => return Err(load_error(format!("{error:#}"))),
            Err(panic) => return Err(load_error(format!("the loader panicked: {panic}"))),
        };
        let context_tokens = model.max_sequence_length().ok().flatten();
        let weight_bytes = match format {
            ModelFormat::Gguf { directory, file } => std::fs::metadata(directory.join(file))
                .map(|m| m.len())
                .unwrap_or(0),
            ModelFormat::HuggingFace { directory, .. } => std::fs::read_dir(directory)
                .map(|entries| {
                    entries
                        .filter_map(Result::ok)
                        .filter(|e| e.path().extension().is_some_and(|x| x == "safetensors"))
                        .filter_map(|e| e.metadata().ok())
                        .map(|m| m.len())
                        .sum()
                })
                .unwrap_or(0),
            ModelFormat::Pair { .. } => 0,
        };
        let name = model_name(&path);
        let engine = Self::engine(
            runtime,
            Runner::Local(model),
            path.clone(),
            name,
            context_tokens,
            weight_bytes,
            started,
        )?;
        Ok(Engine {
            prefix_cache_sequences: prefix_cache,
            ..engine
        })
    }

    /// An engine over `runner`, its tokenizer asked which of the debugger's
    /// tokens it has and where a generation ends.
    fn engine(
        runtime: &tokio::runtime::Runtime,
        runner: Runner,
        path: PathBuf,
        name: String,
        context_tokens: Option<usize>,
        weight_bytes: u64,
        started: Instant,
    ) -> Result<Engine, ModelError> {
        let special_tokens = Self::special_token_mode(runtime, &runner, &path)?;
        let stops = Self::end_of_sequence_ids(runtime, &runner, &path)?;
        if special_tokens == SpecialTokenMode::Text {
            eprintln!(
                "ndb: {} has no tokens for the debugger's markers; they are spelled out as \
                 text (a base model not trained on the debugger language)",
                path.display()
            );
        }
        Ok(Engine {
            model: runner,
            info: ModelInfo {
                path,
                name,
                special_tokens,
                context_tokens,
                load_seconds: started.elapsed().as_secs_f64(),
                weight_bytes,
            },
            stop_ids: stops.iter().map(|(id, _)| *id).collect(),
            stop_names: stops.into_iter().map(|(_, name)| name).collect(),
            cached_texts: std::sync::Mutex::new(std::collections::VecDeque::new()),
            prefix_cache_sequences: PREFIX_CACHE_SEQUENCES,
        })
    }

    /// The end-of-sequence tokens the tokenizer has as one token each, with
    /// their names.
    fn end_of_sequence_ids(
        runtime: &tokio::runtime::Runtime,
        model: &Runner,
        path: &Path,
    ) -> Result<Vec<(u32, String)>, ModelError> {
        let mut ids = Vec::new();
        for name in END_OF_SEQUENCE {
            let tokens = Self::tokenize_at_load(runtime, model, path, name)?;
            if let [id] = tokens.as_slice() {
                ids.push((*id, name.to_string()));
            }
        }
        Ok(ids)
    }

    /// `text`'s tokens while the model loads: any failure is a load error.
    fn tokenize_at_load(
        runtime: &tokio::runtime::Runtime,
        model: &Runner,
        path: &Path,
        text: &str,
    ) -> Result<Vec<u32>, ModelError> {
        let failed = |reason: String| ModelError::Load {
            path: path.to_path_buf(),
            reason: format!("tokenizing {text}: {reason}"),
        };
        block_on(runtime, || model.tokenize(text))
            .map_err(|Panicked(panic)| failed(format!("the tokenizer panicked: {panic}")))?
            .map_err(|error| failed(error.to_string()))
    }

    fn special_token_mode(
        runtime: &tokio::runtime::Runtime,
        model: &Runner,
        path: &Path,
    ) -> Result<SpecialTokenMode, ModelError> {
        let lengths = SPECIAL_TOKENS
            .iter()
            .map(|token| Self::tokenize_at_load(runtime, model, path, token).map(|ids| ids.len()))
            .collect::<Result<Vec<_>, _>>()?;
        let single: Vec<bool> = lengths.iter().map(|&n| n == 1).collect();
        if single.iter().all(|&s| s) {
            Ok(SpecialTokenMode::Tokens)
        } else if single.iter().filter(|&&s| s).count() <= 2 {
            // A general tokenizer may happen to have a short marker or two
            // as one token; that is not a trained debugger vocabulary.
            Ok(SpecialTokenMode::Text)
        } else {
            let missing: Vec<&str> = SPECIAL_TOKENS
                .iter()
                .zip(&single)
                .filter(|(_, &s)| !s)
                .map(|(token, _)| *token)
                .collect();
            Err(ModelError::SpecialTokens {
                missing: missing.join(" "),
            })
        }
    }

    /// The model asked in the text language (the only one, unless the
    /// model is a pair).
    pub fn info(&self) -> &ModelInfo {
        &self.language.info
    }

    /// The model asked the questions that have an assertion form, when it
    /// is not [`Self::info`]'s and has been loaded.
    pub fn assertion_info(&self) -> Option<&ModelInfo> {
        self.assertions
            .as_ref()
            .and_then(|lazy| lazy.engine.get())
            .and_then(|engine| engine.as_ref().ok())
            .map(|engine| &engine.info)
    }

    /// The engine that answers questions asked as assertions, loaded the
    /// first time it is needed.
    fn assertion_engine(&self) -> Result<&Engine, DebugError> {
        let Some(lazy) = &self.assertions else {
            return Ok(&self.language);
        };
        lazy.engine
            .get_or_init(|| match &lazy.format {
                Some(format) => Self::load_engine(
                    self.runtime(),
                    &lazy.path,
                    format,
                    &self.spec,
                    CODE_MODEL_PREFIX_CACHE_SEQUENCES,
                ),
                None => Err(ModelError::Load {
                    path: lazy.path.clone(),
                    reason: "not connected".to_string(),
                }),
            })
            .as_ref()
            .map_err(|error| DebugError::Engine(format!("the assertion model: {error}")))
    }

    pub fn spec(&self) -> &ModelSpec {
        &self.spec
    }

    /// How this model is asked the jumps that have an assertion form.
    pub fn forms(&self) -> Forms {
        self.forms
    }

    /// Figures of the latest generation (for benchmarks).
    pub fn last_throughput(&self) -> Throughput {
        *self
            .last_throughput
            .lock()
            .unwrap_or_else(|e| e.into_inner())
    }

    /// How many generation requests reached the model (cached answers do
    /// not count).
    pub fn requests(&self) -> usize {
        self.requests.load(Ordering::Relaxed)
    }

    /// Forgets every cached answer.
    pub fn clear_cache(&self) {
        self.cache.clear();
    }

    /// Hits and misses of the answer cache.
    pub fn cache_stats(&self) -> CacheStats {
        self.cache.stats()
    }

    fn runtime(&self) -> &tokio::runtime::Runtime {
        self.runtime
            .as_ref()
            .expect("the runtime lives as long as the debugger")
    }

    /// The grammar of the state after `action`, with special tokens as the
    /// model's tokenizer carries them.
    fn grammar(&self, source: &Source, action: &TextAction, current: &TextState) -> String {
        let grammar = lark::answer_grammar(Some(source), action, Some(current));
        match self.language.info.special_tokens {
            SpecialTokenMode::Tokens => grammar,
            SpecialTokenMode::Text => lark::special_tokens_as_text(&grammar),
        }
    }

    /// Tokens in `text` by the model's tokenizer.
    pub fn count_tokens(&self, text: &str) -> Result<usize, DebugError> {
        let model = &self.language.model;
        let ids = block_on(self.runtime(), || model.tokenize(text))?
            .map_err(|error| DebugError::Engine(error.to_string()))?;
        Ok(ids.len())
    }

    /// Builds the prompt, leaving out the oldest steps when the whole does
    /// not fit the model's context. Returns the prompt and how many steps
    /// were left out.
    fn fit_prompt(&self, session: &Session, action: Action) -> Result<(String, usize), DebugError> {
        let demonstrate = self.language.info.special_tokens == SpecialTokenMode::Text;
        let full = prompt::prompt(session, action, 0, demonstrate);
        let Some(context) = self.language.info.context_tokens else {
            return Ok((full, 0));
        };
        let budget = context.saturating_sub(self.spec.max_new_tokens);
        let mut skip = 0;
        let mut text = full;
        loop {
            // A byte-level tokenizer writes at least one byte per token, so
            // a prompt of fewer bytes than the budget fits without asking
            // the engine, which may be busy for seconds finishing a
            // cancelled generation (`stop_and_drain`) and cannot be
            // interrupted while it counts. The margin covers the tokens
            // the engine may add (a start of sequence).
            if text.len() + PROMPT_MARGIN_TOKENS <= budget {
                return Ok((text, skip));
            }
            let tokens = self.count_tokens(&text)?;
            if tokens <= budget {
                return Ok((text, skip));
            }
            if skip >= session.steps.len() {
                return Err(DebugError::PromptTooLong {
                    tokens,
                    context,
                    answer: self.spec.max_new_tokens,
                });
            }
            // Drop about the share of steps that is over budget, at least one.
            let over = (tokens - budget) as f64 / tokens as f64;
            let more = ((session.steps.len() - skip) as f64 * over).ceil() as usize;
            skip = (skip + more.max(1)).min(session.steps.len());
            text = prompt::prompt(session, action, skip, demonstrate);
        }
    }

    /// One completion request to the engine. When `cancel` is set while it
    /// runs, this returns `Cancelled` at once and the engine is told to stop
    /// it ([`stop_and_drain`]).
    fn request(
        &self,
        engine: &Engine,
        prompt: String,
        constraint: Constraint,
        sampling: SamplingParams,
        cancel: &Cancel,
    ) -> Result<mistralrs::CompletionResponse, DebugError> {
        let model = match &engine.model {
            Runner::Local(model) => model,
            Runner::Remote(endpoint) => {
                return self.request_served(
                    endpoint,
                    &engine.stop_names,
                    prompt,
                    constraint,
                    sampling,
                    cancel,
                )
            }
        };
        let _counted = InFlight::start();
        let response = block_on(self.runtime(), || async move {
            let (sender, mut receiver) = tokio::sync::mpsc::channel(16);
            let runner = model.inner();
            let request = Request::Normal(Box::new(NormalRequest {
                messages: RequestMessage::Completion {
                    text: prompt,
                    echo_prompt: false,
                    best_of: None,
                },
                sampling_params: sampling,
                response: sender,
                return_logprobs: true,
                is_streaming: false,
                id: runner.next_request_id(),
                constraint,
                suffix: None,
                tools: None,
                tool_choice: None,
                logits_processors: None,
                return_raw_logits: false,
                web_search_options: None,
                model_id: None,
                truncate_sequence: false,
            }));
            let engine = runner.get_sender(None).map_err(|error| error.to_string())?;
            engine
                .send(request)
                .await
                .map_err(|_| "the model engine has stopped".to_string())?;
            let cancelled = async {
                while !cancel.is_cancelled() {
                    tokio::time::sleep(std::time::Duration::from_millis(20)).await;
                }
            };
            tokio::select! {
                response = receiver.recv() => response
                    .map(Some)
                    .ok_or_else(|| "the model engine dropped the request".to_string()),
                () = cancelled => {
                    // The caller goes on at once; the engine is told to
                    // stop, and the answer nobody waits for is drained.
                    tokio::spawn(stop_and_drain(receiver, InFlight::start()));
                    Ok(None)
                }
            }
        })?
        .map_err(|error| DebugError::Engine(error.to_string()))?;
        self.requests.fetch_add(1, Ordering::Relaxed);
        let Some(response) = response else {
            return Err(DebugError::Cancelled);
        };
        if cancel.is_cancelled() {
            // A stopped generation's partial answer is nobody's.
            return Err(DebugError::Cancelled);
        }
        let completion = match response {
            Response::CompletionDone(done) => done,
            Response::CompletionModelError(message, _) => return Err(DebugError::Engine(message)),
            Response::InternalError(error) | Response::ValidationError(error) => {
                return Err(DebugError::Engine(error.to_string()))
            }
            _ => return Err(DebugError::Engine("unexpected response kind".to_string())),
        };
        Ok(completion)
    }

    /// [`Self::request`] of a served model: the same request over HTTP; a
    /// cancel returns at once and drops the connection.
    fn request_served(
        &self,
        endpoint: &remote::Endpoint,
        stop: &[String],
        prompt: String,
        constraint: Constraint,
        sampling: SamplingParams,
        cancel: &Cancel,
    ) -> Result<mistralrs::CompletionResponse, DebugError> {
        let answer = block_on(self.runtime(), || async {
            let cancelled = async {
                while !cancel.is_cancelled() {
                    tokio::time::sleep(std::time::Duration::from_millis(20)).await;
                }
            };
            tokio::select! {
                answer = endpoint.complete(&prompt, &constraint, &sampling, stop) => Some(answer),
                () = cancelled => None,
            }
        })?;
        self.requests.fetch_add(1, Ordering::Relaxed);
        match answer {
            None => Err(DebugError::Cancelled),
            Some(answer) => answer.map_err(|error| DebugError::Engine(error.to_string())),
        }
    }

    /// Computes `prefix` (the start of a prompt about to be asked) into
    /// the prefix cache a part at a time: from where the most similar
    /// recent prompt leaves off, cut at line ends about
    /// [`PREFILL_PART_BYTES`] apart, each part one request of one token.
    /// mistral.rs reads a prompt in one pass that no cancel stops, and a
    /// code model's pass over a new source and the worked assertions takes
    /// seconds (Qwen2.5-Coder-1.5B reads about 56 tokens/s on 2 cores): a
    /// question cancelled by its budget kept the engine busy past the next
    /// question's budget, which was then cancelled too, and so on (CruxEval
    /// dev input without running at the default 10 s: 1 check in 100
    /// problems). In parts, a cancel frees the engine within one part's
    /// pass. Skipped when recent prompts cover all but
    /// [`PREFILL_WORTH_BYTES`] of it.
    fn prefill_in_parts(
        &self,
        engine: &Engine,
        prefix: &str,
        cancel: &Cancel,
    ) -> Result<(), DebugError> {
        let done = engine
            .cached_texts
            .lock()
            .map(|texts| {
                texts
                    .iter()
                    .map(|text| common_prefix_len(text, prefix))
                    .max()
                    .unwrap_or(0)
            })
            .unwrap_or(0);
        for cut in prefill_cuts(prefix, done) {
            if cancel.is_cancelled() {
                return Err(DebugError::Cancelled);
            }
            self.compute_into_cache(engine, &prefix[..cut], cancel)?;
        }
        Ok(())
    }

    /// Asks for one token after `text` (no grammar), so that mistral.rs's
    /// prefix cache holds its keys and values, and remembers it cached.
    fn compute_into_cache(
        &self,
        engine: &Engine,
        text: &str,
        cancel: &Cancel,
    ) -> Result<(), DebugError> {
        let sampling = SamplingParams {
            max_len: Some(1),
            ..SamplingParams::deterministic()
        };
        self.request(engine, text.to_string(), Constraint::None, sampling, cancel)?;
        engine.remember_cached(text, std::iter::once(String::new()));
        Ok(())
    }

    /// Computes the part of `prompt` before its action once (one token, no
    /// grammar), so that mistral.rs's prefix cache holds its keys and
    /// values. The k sequences of a sampled question start together and
    /// each would compute the whole prompt (k prefills); after this they
    /// start from the cache and compute only the action's few tokens. The
    /// cache serves only a strict prefix of a prompt (an exact match is a
    /// miss), hence the cut before the action; it is also the part every
    /// action asked about the same state shares. Skipped when a recent
    /// prompt and answer already cover nearly all of it (the next question
    /// of a session) or all of it (another action about the same state):
    /// the k sequences start from that entry.
    fn prefill(&self, engine: &Engine, prompt: &str, cancel: &Cancel) -> Result<(), DebugError> {
        let Some(cut) = prompt.rfind(ACTION_SEP).filter(|&cut| cut > 0) else {
            return Ok(());
        };
        let prefix = &prompt[..cut];
        let covered = engine
            .cached_texts
            .lock()
            .map(|texts| {
                texts
                    .iter()
                    .map(|text| {
                        if text.starts_with(prefix) {
                            prefix.len()
                        } else if prefix.starts_with(text.as_str()) {
                            text.len()
                        } else {
                            0
                        }
                    })
                    .max()
                    .unwrap_or(0)
            })
            .unwrap_or(0);
        if prefix.len() - covered < PREFILL_WORTH_BYTES {
            return Ok(());
        }
        self.compute_into_cache(engine, prefix, cancel)
    }

    /// Samples `k` answers for `prompt` under `grammar`.
    fn generate(
        &self,
        engine: &Engine,
        prompt: String,
        grammar: String,
        k: usize,
        repeats: Repeats,
        cancel: &Cancel,
    ) -> Result<Vec<Sample>, DebugError> {
        if cancel.is_cancelled() {
            return Err(DebugError::Cancelled);
        }
        let stop = (!engine.stop_ids.is_empty()).then(|| StopTokens::Ids(engine.stop_ids.clone()));
        let sampling = if k <= 1 {
            // Greedy, but through the softmax: mistral.rs's argmax path
            // reports the log of the raw logit as the "log-probability",
            // while a temperature of 1 with top_k = 1 picks the same token
            // and reports its real probability (the confidence at k = 1).
            SamplingParams {
                temperature: Some(1.0),
                max_len: Some(self.spec.max_new_tokens),
                stop_toks: stop.clone(),
                dry_params: (repeats == Repeats::Penalized).then(|| DrySamplingParams {
                    multiplier: REPEAT_PENALTY,
                    ..DrySamplingParams::default()
                }),
                ..SamplingParams::deterministic()
            }
        } else {
            SamplingParams {
                temperature: Some(self.spec.temperature),
                max_len: Some(self.spec.max_new_tokens),
                n_choices: k,
                stop_toks: stop,
                ..SamplingParams::neutral()
            }
        };
        // NDB_LOG_PROMPTS=1: every prompt and its answer's tokens on stderr.
        let logged_prompt = std::env::var_os("NDB_LOG_PROMPTS").map(|_| prompt.clone());
        let special: Vec<&str> = SPECIAL_TOKENS.to_vec();
        let started = Instant::now();
        if k > 1 {
            self.prefill(engine, &prompt, cancel)?;
        }
        // A generation stopped by another request's cancel (the window
        // between a cancel's check of IN_FLIGHT and the engine's next step)
        // is asked again once; its partial answer is never parsed.
        let mut attempts = 0;
        let completion = loop {
            attempts += 1;
            let completion = self.request(
                engine,
                prompt.clone(),
                Constraint::Lark(grammar.clone()),
                sampling.clone(),
                cancel,
            )?;
            let stopped = completion
                .choices
                .iter()
                .any(|choice| choice.finish_reason == "canceled");
            if !stopped {
                break completion;
            }
            if attempts == 2 {
                return Err(DebugError::Engine(
                    "the generation was stopped twice by another request's cancel".to_string(),
                ));
            }
        };
        let elapsed = started.elapsed().as_secs_f64();
        let usage = &completion.usage;
        if let Ok(mut throughput) = self.last_throughput.lock() {
            *throughput = Throughput {
                prompt_tokens: usage.prompt_tokens,
                prompt_seconds: usage.total_prompt_time_sec as f64,
                generated_tokens: usage.completion_tokens,
                prompt_tokens_per_second: usage.avg_prompt_tok_per_sec as f64,
                generated_tokens_per_second: if usage.total_completion_time_sec > 0.0 {
                    usage.avg_compl_tok_per_sec as f64
                } else {
                    usage.completion_tokens as f64 / elapsed.max(1e-9)
                },
            };
        }
        let samples = completion
            .choices
            .iter()
            .map(|choice| {
                let content = choice
                    .logprobs
                    .as_ref()
                    .and_then(|logprobs| logprobs.content.as_ref());
                let pieces: Vec<String> = content
                    .map(|content| content.iter().map(|l| l.token.clone()).collect())
                    .unwrap_or_default();
                let log10_probabilities: Vec<f32> = content
                    .map(|content| content.iter().map(|l| l.logprob).collect())
                    .unwrap_or_default();
                if let Some(prompt) = &logged_prompt {
                    // One line each, for diffing against training's text.
                    eprintln!("ndb: prompt {prompt:?}");
                    eprintln!(
                        "ndb: answer tokens (log10 p) {:?}",
                        pieces.iter().zip(&log10_probabilities).collect::<Vec<_>>()
                    );
                }
                let text = if pieces.is_empty() {
                    choice.text.clone()
                } else {
                    merge_special_tokens(&pieces, &choice.text, &special)
                };
                // The token generation stopped at is not part of the answer.
                let text = strip_end_of_sequence(&text).to_string();
                Sample {
                    text,
                    cut_off: choice.finish_reason == "length",
                    tokens: pieces.len(),
                    probability: sequence_probability(&log10_probabilities),
                }
            })
            .collect::<Vec<Sample>>();
        engine.remember_cached(&prompt, samples.iter().map(|sample| sample.text.clone()));
        if cancel.is_cancelled() {
            return Err(DebugError::Cancelled);
        }
        Ok(samples)
    }

    /// The distinct answers for `action` after `session`, most voted first,
    /// from the cache when the same question was asked before.
    fn answers(
        &self,
        session: &Session,
        action: Action,
        k: usize,
        cancel: &Cancel,
    ) -> Result<(Arc<Vec<Candidate>>, usize), DebugError> {
        let (prompt, skipped) = self.fit_prompt(session, action)?;
        let candidates = self.answers_to_prompt(
            prompt,
            &session.source,
            &text_action(&session.source, action),
            &session.current().text,
            k,
            cancel,
        )?;
        Ok((candidates, skipped))
    }

    /// The distinct answers to a prompt built by [`prompt`], most voted
    /// first: the state grammar of `source`, k samples, parsed (delta
    /// locals applied to `previous`'s) and voted; cached by prompt.
    fn answers_to_prompt(
        &self,
        prompt: String,
        source: &Source,
        action: &TextAction,
        previous: &TextState,
        k: usize,
        cancel: &Cancel,
    ) -> Result<Arc<Vec<Candidate>>, DebugError> {
        // The prompt ends with the action: it decides the grammar too.
        let grammar = self.grammar(source, action, previous);
        self.voted_answers(
            &self.language,
            prompt,
            grammar,
            delta_base(previous),
            k,
            &|sample| sample,
            cancel,
        )
    }

    /// The distinct answers to `prompt` under `grammar` from `engine`, most
    /// voted first: k samples, each read into the text language by `read`,
    /// parsed (delta locals applied to `previous_locals`) and voted; cached
    /// by prompt.
    #[allow(clippy::too_many_arguments)]
    fn voted_answers(
        &self,
        engine: &Engine,
        prompt: String,
        grammar: String,
        previous_locals: Option<&ndb_grammar::Locals>,
        k: usize,
        read: &dyn Fn(Sample) -> Sample,
        cancel: &Cancel,
    ) -> Result<Arc<Vec<Candidate>>, DebugError> {
        let mut hasher = std::collections::hash_map::DefaultHasher::new();
        (&prompt, k, self.spec.temperature.to_bits()).hash(&mut hasher);
        let key = hasher.finish();
        if let Some(hit) = self.cache.get(&key) {
            return Ok(hit);
        }
        let ask = |repeats| -> Result<Vec<Sample>, DebugError> {
            let samples =
                self.generate(engine, prompt.clone(), grammar.clone(), k, repeats, cancel)?;
            Ok(samples.into_iter().map(read).collect())
        };
        let (mut candidates, rejected) = vote(&ask(Repeats::Free)?, previous_locals);
        if candidates.is_empty()
            && k == 1
            && matches!(rejected.first(), Some(Rejected::CutOff { .. }))
        {
            // A greedy answer that ran to the token limit is nearly always
            // a value repeating itself ("[0, 0, 0, ..."). Asked once more
            // with repeats penalized (DRY), the model may finish one. Its
            // probability is then the penalized distribution's, not the
            // model's own, so the answer is reported as a guess
            // (probability 0), never as likely.
            let (retried, _) = vote(&ask(Repeats::Penalized)?, previous_locals);
            if !retried.is_empty() {
                candidates = retried
                    .into_iter()
                    .map(|candidate| Candidate {
                        probability: Some(0.0),
                        ..candidate
                    })
                    .collect();
            }
        }
        if candidates.is_empty() {
            return Err(match rejected.into_iter().next() {
                Some(Rejected::CutOff { text, tokens }) => DebugError::CutOff { text, tokens },
                Some(Rejected::Malformed { text, errors }) => {
                    DebugError::Malformed { text, errors }
                }
                None => DebugError::NoAnswer,
            });
        }
        let candidates = Arc::new(candidates);
        self.cache.insert(key, candidates.clone());
        Ok(candidates)
    }

    /// The distinct answers to a question asked as an assertion
    /// ([`direct`]), most voted first, as the text language's states: each
    /// sample's literal is put into the return state (an output) or bound
    /// to the function's parameters as its call state (an input, bound as
    /// the entry call is, without running code), then voted as any answer.
    fn assertion_answers(
        &self,
        session: &Session,
        question: &direct::Question,
        k: usize,
        cancel: &Cancel,
    ) -> Result<Arc<Vec<Candidate>>, DebugError> {
        let src = question.src(&session.source).to_string();
        let read = |sample: Sample| {
            if sample.cut_off {
                return sample;
            }
            let state = match question {
                direct::Question::Output { .. } => {
                    direct::output_value(&sample.text).map(|value| TextState {
                        event: TextEvent::Return,
                        inverse: false,
                        src: src.clone(),
                        locals: Vec::new(),
                        value: Some(value),
                    })
                }
                direct::Question::Input { function, .. } => direct::input_arguments(&sample.text)
                    .and_then(|arguments| {
                        let call = format!("{function}({arguments})");
                        crate::entry::bind_entry_call(&session.source, &call, &self.spec.tracer)
                            .ok()
                            .map(|binding| TextState {
                                event: TextEvent::Call,
                                inverse: true,
                                src: src.clone(),
                                locals: binding.locals,
                                value: None,
                            })
                    }),
            };
            Sample {
                // An answer that names no literal (or arguments that do not
                // fit the parameters) stays as written: the vote reports it
                // malformed.
                text: state.map_or(sample.text, |state| {
                    ndb_grammar::text::print_state(&state, None)
                }),
                ..sample
            }
        };
        let engine = self.assertion_engine()?;
        let prompt = question.prompt(&session.source);
        self.prefill_in_parts(engine, &question.shared_prompt(&session.source), cancel)?;
        self.voted_answers(engine, prompt, question.grammar(), None, k, &read, cancel)
    }

    /// Teacher-forced: the model's answers for the state after a recorded
    /// trajectory's steps so far and `action`, asked as [`Debugger::next`]
    /// asks (an assertion where the forms say so and the question has that
    /// form, which needs the record's `entry_call`; else the text
    /// language's prompt, with the demonstration for an untrained model,
    /// the state grammar, the same sampling and vote), most voted first,
    /// with their votes of `k`. `ndb eval --task next-state` scores
    /// held-out records with it.
    pub fn answer_recorded(
        &self,
        trajectory: &TextTrajectory,
        action: &TextAction,
        entry_call: Option<&str>,
        k: usize,
        cancel: &Cancel,
    ) -> Result<Vec<(TextState, Confidence)>, DebugError> {
        let k = k.max(1);
        let asked = entry_call
            .and_then(|call| self.recorded_session(trajectory, call))
            .and_then(|session| {
                let action = recorded_action(&session.source, action)?;
                let question = direct::Question::of(&session, action, self.forms)?;
                Some((session, question))
            });
        let candidates = match asked {
            Some((session, question)) if question.form(self.forms) == Form::Best => {
                let asserted = self.assertion_answers(&session, &question, k, cancel);
                let action =
                    recorded_action(&session.source, action).ok_or(DebugError::NoAnswer)?;
                either_answer(asserted, self.answers(&session, action, k, cancel))?.0
            }
            Some((session, question)) => self.assertion_answers(&session, &question, k, cancel)?,
            None => {
                let demonstrate = self.language.info.special_tokens == SpecialTokenMode::Text;
                let question = prompt_prefix(trajectory, action);
                let prompt = if demonstrate {
                    format!("{}{question}", prompt::DEMONSTRATION)
                } else {
                    question
                };
                let previous = trajectory
                    .steps
                    .last()
                    .map_or(&trajectory.start, |step| &step.state);
                let source = crate::python::read_source(trajectory.source.as_str());
                self.answers_to_prompt(prompt, &source, action, previous, k, cancel)?
            }
        };
        Ok(candidates
            .iter()
            .map(|candidate| {
                let confidence = Confidence {
                    votes: candidate.votes,
                    samples: k,
                    probability: candidate.probability,
                };
                (candidate.state.clone(), confidence)
            })
            .collect())
    }

    /// A recorded trajectory from `entry_call`'s call state as the session
    /// the product would have: the call placed on its function's first
    /// line at depth 0 and every recorded step placed by following frames.
    /// `None` when the start is no call of a function of the source.
    fn recorded_session(&self, trajectory: &TextTrajectory, entry_call: &str) -> Option<Session> {
        if trajectory.start.event != TextEvent::Call || trajectory.start.inverse {
            return None;
        }
        let source = crate::python::read_source(trajectory.source.as_str());
        let span = source
            .spans()
            .iter()
            .find(|span| source.get_line(span.def_line) == Some(trajectory.start.src.as_str()))?;
        let mut session = Session {
            source: source.clone(),
            entry_call: Some(entry_call.to_string()),
            start: State {
                text: trajectory.start.clone(),
                view: Some(StateView::Event {
                    kind: EventKind::Call,
                    line: span.first_line,
                    depth: 0,
                    locals: Some(trajectory.start.locals.clone()),
                    value: None,
                }),
                confidence: None,
                note: None,
            },
            steps: Vec::new(),
        };
        for step in &trajectory.steps {
            let action = recorded_action(&source, &step.action)?;
            let view = self.place(&session, action, &step.state);
            session.steps.push(crate::debugger::Step {
                action,
                state: State {
                    text: step.state.clone(),
                    view,
                    confidence: None,
                    note: None,
                },
            });
        }
        Some(session)
    }

    /// Places the model's text states on lines, following the session's
    /// frames.
    fn place(&self, session: &Session, action: Action, text: &TextState) -> Option<StateView> {
        let locator = Locator::new(&session.source);
        let mut stack = locator.start(session.start.view.as_ref());
        for step in &session.steps {
            stack = locator.place(&stack, step.action, &step.state.text).1;
        }
        locator.place(&stack, action, text).0
    }

    /// What a session at an end state shows for `action` without asking
    /// the model: pdb stays at the end.
    fn stays(session: &Session, action: Action) -> Option<State> {
        let current = session.current();
        let stays = match current.text.event {
            TextEvent::ExitNormal | TextEvent::ExitError | TextEvent::ExitNever => {
                !action.is_inverse()
            }
            TextEvent::ExitEntry => action.is_inverse(),
            _ => false,
        };
        stays.then(|| State {
            confidence: None,
            note: None,
            ..current.clone()
        })
    }
}

/// The answers of the `best` form: of both forms' answers the better, or
/// the one form's that answered at all (an answer cut off in one form is no
/// reason to drop the other's); a cancel is a cancel.
fn either_answer(
    asserted: Result<Arc<Vec<Candidate>>, DebugError>,
    spoken: Result<(Arc<Vec<Candidate>>, usize), DebugError>,
) -> Result<(Arc<Vec<Candidate>>, usize), DebugError> {
    match (asserted, spoken) {
        (Err(DebugError::Cancelled), _) | (_, Err(DebugError::Cancelled)) => {
            Err(DebugError::Cancelled)
        }
        (asserted, Ok((spoken, skipped))) => Ok((better(asserted.ok(), spoken), skipped)),
        (Ok(asserted), Err(_)) => Ok((asserted, 0)),
        (Err(_), Err(error)) => Err(error),
    }
}

/// Of an assertion's answers and the text language's, those whose first
/// answer the model gave the higher probability (votes first, when k > 1).
fn better(
    asserted: Option<Arc<Vec<Candidate>>>,
    spoken: Arc<Vec<Candidate>>,
) -> Arc<Vec<Candidate>> {
    let score = |candidates: &Arc<Vec<Candidate>>| {
        candidates
            .first()
            .map_or((0, 0.0), |c| (c.votes, c.probability.unwrap_or(0.0)))
    };
    match asserted {
        Some(asserted) if score(&asserted) > score(&spoken) => asserted,
        _ => spoken,
    }
}

/// What a model is called in reports: its file or folder name.
fn model_name(path: &Path) -> String {
    path.file_name()
        .map(|name| name.to_string_lossy().into_owned())
        .unwrap_or_else(|| path.display().to_string())
}

/// The action a recorded text action is, on `source`'s lines.
fn recorded_action(source: &Source, action: &TextAction) -> Option<Action> {
    Some(match action {
        TextAction::StepInto => Action::StepInto,
        TextAction::StepOver => Action::StepOver,
        TextAction::StepReturn => Action::StepReturn,
        TextAction::Continue => Action::Continue,
        TextAction::InvStepInto => Action::InvStepInto,
        TextAction::InvStepOver => Action::InvStepOver,
        TextAction::InvStepCall => Action::InvStepCall,
        TextAction::Breakpoint { src, occurrence } => Action::Breakpoint(
            ndb_grammar::text::resolve_breakpoint(source, src, *occurrence)?,
        ),
    })
}

impl Debugger for NeuralDebugger {
    fn name(&self) -> String {
        self.name.clone()
    }

    /// The call state is computed, not predicted: the entry call's literal
    /// arguments bound to the function's parameters, without running code.
    fn start(
        &self,
        source: &Source,
        entry_call: &str,
        cancel: &Cancel,
    ) -> Result<State, DebugError> {
        if cancel.is_cancelled() {
            return Err(DebugError::Cancelled);
        }
        let binding = crate::entry::bind_entry_call(source, entry_call, &self.spec.tracer)
            .map_err(DebugError::Entry)?;
        Ok(State {
            text: TextState {
                event: TextEvent::Call,
                inverse: false,
                src: source.call_line(binding.line).to_string(),
                locals: binding.locals.clone(),
                value: None,
            },
            view: Some(StateView::Event {
                kind: EventKind::Call,
                line: binding.line,
                depth: 0,
                locals: Some(binding.locals),
                value: None,
            }),
            confidence: None,
            note: None,
        })
    }

    fn next(
        &self,
        session: &Session,
        action: Action,
        cancel: &Cancel,
    ) -> Result<State, DebugError> {
        let mut candidates = self.candidates(session, action, self.spec.samples, cancel)?;
        Ok(candidates.remove(0))
    }

    fn candidates(
        &self,
        session: &Session,
        action: Action,
        k: usize,
        cancel: &Cancel,
    ) -> Result<Vec<State>, DebugError> {
        if let Some(state) = Self::stays(session, action) {
            return Ok(vec![state]);
        }
        let k = k.max(1);
        let (candidates, skipped) = match direct::Question::of(session, action, self.forms) {
            Some(question) if question.form(self.forms) == Form::Best => {
                let asserted = self.assertion_answers(session, &question, k, cancel);
                either_answer(asserted, self.answers(session, action, k, cancel))?
            }
            Some(question) => (self.assertion_answers(session, &question, k, cancel)?, 0),
            None => self.answers(session, action, k, cancel)?,
        };
        let note = (skipped > 0).then(|| {
            format!(
                "the oldest {skipped} step(s) were left out of the prompt to fit the model's context"
            )
        });
        Ok(candidates
            .iter()
            .map(|candidate| {
                let view = self.place(session, action, &candidate.state);
                let view = match (view, &candidate.state.event) {
                    // The model does not write the exit's value.
                    (Some(StateView::Exit { status, .. }), _) => Some(StateView::Exit {
                        status,
                        value: None,
                    }),
                    (view, _) => view,
                };
                State {
                    text: candidate.state.clone(),
                    view,
                    confidence: Some(Confidence {
                        votes: candidate.votes,
                        samples: k,
                        probability: candidate.probability,
                    }),
                    note: note.clone(),
                }
            })
            .collect())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_long_new_prompt_is_computed_in_parts_cut_at_line_ends() {
        // 30 lines of 49 bytes ('é' is two) and a line end: 1,500 bytes.
        let line = format!("{}\n", "x = 'é' + 'abcdefghijklmnopqrstuvwxyz0123456789'");
        let prefix = line.repeat(30);
        assert_eq!(prefix.len(), 30 * line.len());
        let cuts = prefill_cuts(&prefix, 0);
        assert!(cuts.len() >= 3, "{cuts:?}");
        let mut last = 0;
        for &cut in &cuts {
            assert!(cut > last && cut - last >= PREFILL_PART_BYTES, "{cuts:?}");
            assert!(cut == prefix.len() || prefix.as_bytes()[cut - 1] == b'\n');
            last = cut;
        }
        // What is left for the question itself is under the bar.
        assert!(prefix.len() - last < PREFILL_WORTH_BYTES);
        // From a cached start only the rest is cut; a short rest not at all.
        assert_eq!(prefill_cuts(&prefix, 1_000), vec![1_450]);
        assert!(prefill_cuts(&prefix, prefix.len() - 10).is_empty());
        assert!(prefill_cuts("def f():\n    return 1\n", 0).is_empty());
    }

    #[test]
    fn shared_prefixes_end_at_a_character_boundary() {
        assert_eq!(common_prefix_len("abc", "abd"), 2);
        assert_eq!(common_prefix_len("ab", "abc"), 2);
        assert_eq!(common_prefix_len("abc", "ab"), 2);
        assert_eq!(common_prefix_len("xé", "xè"), 1);
        assert_eq!(common_prefix_len("", "a"), 0);
    }

    #[test]
    fn the_token_generation_stopped_at_is_not_part_of_the_answer() {
        let answer = "<|return_sep|><|src_sep|>    return n<|arg_sep|>\"0\"";
        assert_eq!(
            strip_end_of_sequence(&format!("{answer}<|endoftext|>")),
            answer
        );
        assert_eq!(
            strip_end_of_sequence(&format!("{answer}<|im_end|></s>")),
            answer
        );
        assert_eq!(strip_end_of_sequence(answer), answer);
    }

    #[test]
    fn paths_are_checked_before_anything_loads() {
        let missing = Path::new("/nonexistent/model");
        assert!(matches!(
            ModelFormat::detect(missing),
            Err(ModelError::NotFound(_))
        ));
        let directory = std::env::temp_dir().join(format!("ndb-model-test-{}", std::process::id()));
        std::fs::create_dir_all(&directory).unwrap();
        let error = ModelFormat::detect(&directory).unwrap_err().to_string();
        assert!(error.contains("neither config.json nor a .gguf"), "{error}");
        std::fs::write(directory.join("config.json"), "{}").unwrap();
        let error = ModelFormat::detect(&directory).unwrap_err().to_string();
        assert!(error.contains("without tokenizer.json"), "{error}");
        std::fs::write(directory.join("tokenizer.json"), "{}").unwrap();
        std::fs::write(directory.join("model.safetensors"), "").unwrap();
        std::fs::write(
            directory.join("config.json"),
            r#"{"architectures": ["LlamaForCausalLM"], "rope_parameters": {}}"#,
        )
        .unwrap();
        let error = ModelFormat::detect(&directory).unwrap_err().to_string();
        assert!(error.contains("rope_theta"), "{error}");
        std::fs::remove_dir_all(&directory).unwrap();
    }

    #[test]
    fn a_directory_with_a_pair_manifest_names_two_models_and_their_forms() {
        let directory = std::env::temp_dir().join(format!("ndb-pair-test-{}", std::process::id()));
        std::fs::create_dir_all(&directory).unwrap();
        let manifest = directory.join(PAIR_MANIFEST);
        std::fs::write(
            &manifest,
            r#"{"language": "../smollm2-debugger", "assertions": "../qwen", "forms": "step_return=assertion"}"#,
        )
        .unwrap();
        assert_eq!(
            ModelFormat::detect(&directory).unwrap(),
            ModelFormat::Pair {
                language: directory.join("../smollm2-debugger"),
                assertions: directory.join("../qwen"),
                forms: Some(Forms {
                    step_return: Form::Assertion,
                    inv_step_call: Form::Language,
                }),
            }
        );
        std::fs::write(&manifest, r#"{"language": "a"}"#).unwrap();
        let error = ModelFormat::detect(&directory).unwrap_err().to_string();
        assert!(error.contains("no `assertions` model"), "{error}");
        std::fs::write(
            &manifest,
            r#"{"language": "a", "assertions": "b", "forms": "prose"}"#,
        )
        .unwrap();
        let error = ModelFormat::detect(&directory).unwrap_err().to_string();
        assert!(error.contains("unknown form `prose`"), "{error}");
        std::fs::write(&manifest, "not json").unwrap();
        let error = ModelFormat::detect(&directory).unwrap_err().to_string();
        assert!(error.contains("is not JSON"), "{error}");
        // A member that is not there is the loader's clear error, before
        // anything loads.
        std::fs::write(
            &manifest,
            r#"{"language": "missing", "assertions": "gone"}"#,
        )
        .unwrap();
        let error = NeuralDebugger::load(&ModelSpec {
            path: Some(directory.clone()),
            ..ModelSpec::default()
        })
        .err()
        .unwrap()
        .to_string();
        assert!(
            error.contains("no model at") && error.contains("gone"),
            "{error}"
        );
        std::fs::remove_dir_all(&directory).unwrap();
    }

    #[test]
    fn the_best_form_keeps_the_surer_answer_or_the_only_one() {
        let answer = |value: &str, probability| {
            Arc::new(vec![Candidate {
                state: TextState {
                    event: TextEvent::Return,
                    inverse: false,
                    src: "    return x".into(),
                    locals: Vec::new(),
                    value: Some(value.into()),
                },
                votes: 1,
                text: String::new(),
                probability: Some(probability),
            }])
        };
        let value = |answers: Result<(Arc<Vec<Candidate>>, usize), DebugError>| {
            answers.unwrap().0[0].state.value.clone().unwrap()
        };
        let cut_off = || DebugError::CutOff {
            text: String::new(),
            tokens: 9,
        };
        assert_eq!(
            value(either_answer(
                Ok(answer("1", 0.9)),
                Ok((answer("2", 0.4), 0))
            )),
            "1"
        );
        assert_eq!(
            value(either_answer(
                Ok(answer("1", 0.3)),
                Ok((answer("2", 0.4), 0))
            )),
            "2"
        );
        assert_eq!(
            value(either_answer(Err(cut_off()), Ok((answer("2", 0.1), 0)))),
            "2"
        );
        assert_eq!(
            value(either_answer(Ok(answer("1", 0.1)), Err(cut_off()))),
            "1"
        );
        assert!(matches!(
            either_answer(Err(cut_off()), Err(cut_off())),
            Err(DebugError::CutOff { .. })
        ));
        assert!(matches!(
            either_answer(Err(DebugError::Cancelled), Ok((answer("2", 0.9), 0))),
            Err(DebugError::Cancelled)
        ));
    }

    #[test]
    fn a_gpu_request_without_the_feature_is_a_clear_error() {
        if cfg!(feature = "cuda") {
            return;
        }
        let directory = std::env::temp_dir().join(format!("ndb-gpu-test-{}", std::process::id()));
        std::fs::create_dir_all(&directory).unwrap();
        let file = directory.join("m.gguf");
        std::fs::write(&file, b"not really").unwrap();
        let spec = ModelSpec {
            path: Some(file),
            gpu: true,
            ..ModelSpec::default()
        };
        let error = NeuralDebugger::load(&spec).err().unwrap().to_string();
        assert!(error.contains("without the `cuda` feature"), "{error}");
        std::fs::remove_dir_all(&directory).unwrap();
    }
}

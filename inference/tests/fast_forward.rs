//! The grammar's forced tokens are taken without a forward pass each (the
//! vendored mistral.rs's fast-forward, `pipeline/sampling.rs`), with the
//! shipped default model. A file of its own: the gauges it reads are the
//! process's, and no other test may run beside it.

use ndb_grammar::Action;
use ndb_inference::debugger::{Cancel, Debugger, Session};
use ndb_inference::neural::{default_model_path, ModelSpec, NeuralDebugger};

const QUICKSTART: &str = include_str!("../../examples/quickstart.py");

#[test]
fn forced_tokens_cost_no_pass_of_their_own() {
    if mistralrs_core::ndb_forward_on_caller() {
        eprintln!("NDB_FORWARD=caller: the passes are not counted");
        return;
    }
    // On by default; set here so that NDB_FAST_FORWARD=off in the
    // environment does not turn this test into nothing.
    mistralrs_core::set_ndb_fast_forward(true);
    let path = default_model_path().expect("the default model is installed by .ci/setup");
    let spec = ModelSpec {
        path: Some(path),
        max_new_tokens: 96,
        ..ModelSpec::default()
    };
    let debugger = NeuralDebugger::load(&spec).expect("the default model loads");
    let cancel = Cancel::new();
    let call = "mean_of_evens([3, 4, 7, 10])";
    let source = ndb_inference::python::read_source(QUICKSTART);
    let session = Session {
        start: debugger.start(&source, call, &cancel).expect("binds"),
        source,
        entry_call: Some(call.to_string()),
        steps: Vec::new(),
    };

    let (forwarded, passes) = gauges();
    let answer = debugger.next(&session, Action::StepOver, &cancel);
    answer.expect("the default model's first step_over parses");
    let tokens = debugger.last_throughput().generated_tokens;
    let (forwarded, passes) = (gauges().0 - forwarded, gauges().1 - passes);
    // Decoding every token: the prompt's pass gives the first, and each
    // later token takes one.
    assert!(forwarded > 0, "no token of {tokens} was forced");
    assert!(
        passes < tokens,
        "{passes} passes for {tokens} tokens, {forwarded} of them forced"
    );

    // k samples are decoded as one batch, token by token.
    let (forwarded, _) = gauges();
    let candidates = debugger.candidates(&session, Action::StepReturn, 2, &cancel);
    candidates.expect("two samples");
    assert_eq!(
        gauges().0,
        forwarded,
        "a batch of samples was fast-forwarded"
    );

    // Switched off, every token is decoded.
    mistralrs_core::set_ndb_fast_forward(false);
    let answer = debugger.next(&session, Action::StepInto, &cancel);
    answer.expect("the default model's first step_into parses");
    assert_eq!(gauges().0, forwarded, "fast-forwarded while off");
}

fn gauges() -> (usize, usize) {
    (
        mistralrs_core::fast_forwarded_tokens(),
        mistralrs_core::forward_passes_on_pool(),
    )
}

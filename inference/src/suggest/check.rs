//! Candidates checked by the model when running is not allowed. The model
//! predicts what the function returns for each candidate (`step_return`
//! from the entry call: for the default pair the question its code model
//! answers as `assert f(ARGS) ==`, the form it answers best) and a
//! candidate whose predicted return is the wanted output ranks first. The
//! inverse question ("which arguments give this?") is the harder one for a
//! model; the forward one it answers more often right, so the search's own
//! candidates (the output, the output with a transformation undone, the
//! file's calls) become suggestions without a run. A check is a
//! prediction, not a run: the suggestion says so and carries its
//! confidence.

use std::sync::Arc;
use std::time::Instant;

use ndb_grammar::Source;

use super::value::{parse_literal, Value};
use super::{Origin, Request, Search};
use crate::debugger::{Cancel, Confidence, DebugError, Debugger};
use crate::ops::{self, OutputMode};

/// What the model predicts a candidate returns.
#[derive(Clone, Debug, PartialEq)]
pub struct ModelCheck {
    /// The predicted return value (a repr), or the exception predicted to
    /// escape when `raised`; `None` when the prediction never reached the
    /// function's return.
    pub predicted: Option<String>,
    pub raised: bool,
    /// The predicted return is the wanted output (compared as values).
    pub gives_output: bool,
    /// The prediction's confidence (`None` for a model that reports none).
    pub confidence: Option<Confidence>,
}

impl ModelCheck {
    /// The confidence as a number in `[0, 1]` (0 when there is none).
    pub fn value(&self) -> f64 {
        self.confidence.map_or(0.0, Confidence::value)
    }

    /// The confidence as every front end shows it: three decimals.
    pub fn shown_confidence(&self) -> Option<f64> {
        self.confidence
            .map(|c| (c.value() * 1000.0).round() / 1000.0)
    }

    /// `likely` or `guess`; `None` without a confidence.
    pub fn verdict(&self) -> Option<&'static str> {
        self.confidence.map(|c| c.verdict().as_str())
    }

    /// The check as every front end words it: "predicted to give it
    /// (0.62, likely), not run" or "predicted to return 3 (0.40, guess),
    /// not run", the predicted value cut to `max_chars` characters.
    pub fn describe(&self, max_chars: usize) -> String {
        describe_prediction(
            self.gives_output,
            self.raised,
            self.predicted.as_deref(),
            self.shown_confidence().zip(self.verdict()),
            max_chars,
        )
    }
}

/// [`ModelCheck::describe`] from its parts (what a front end that keeps
/// only the check's fields has): `confidence` is the value and verdict.
pub fn describe_prediction(
    gives_output: bool,
    raised: bool,
    predicted: Option<&str>,
    confidence: Option<(f64, &str)>,
    max_chars: usize,
) -> String {
    let confidence = confidence
        .map(|(value, verdict)| format!(" ({value:.2}, {verdict})"))
        .unwrap_or_default();
    if gives_output {
        return format!("predicted to give it{confidence}, not run");
    }
    let what = if raised { "raise" } else { "return" };
    let value = predicted.unwrap_or("nothing");
    let max_chars = max_chars.max(4);
    let value = if value.chars().count() > max_chars {
        let mut cut: String = value.chars().take(max_chars - 1).collect();
        cut.push('…');
        cut
    } else {
        value.to_string()
    };
    format!("predicted to {what} {value}{confidence}, not run")
}

/// Whether the predicted return `predicted` is `wanted`: as values when
/// it reads as a Python literal, else as text.
fn same_value(predicted: &str, wanted: &Value, wanted_text: &str) -> bool {
    match parse_literal(predicted) {
        Ok(value) => &value == wanted,
        Err(_) => predicted.trim() == wanted_text.trim(),
    }
}

/// Asks `model` what `function(input)` returns.
pub(crate) fn check_one(
    model: &dyn Debugger,
    source: &Arc<Source>,
    function: &str,
    input: &str,
    wanted: &Value,
    wanted_text: &str,
    cancel: &Cancel,
) -> Result<ModelCheck, DebugError> {
    let call = ops::entry_call(function, input);
    let prediction = ops::predict_output(model, source, &call, OutputMode::StepReturn, cancel)?;
    let gives_output = !prediction.raised
        && prediction
            .value
            .as_deref()
            .is_some_and(|value| same_value(value, wanted, wanted_text));
    Ok(ModelCheck {
        predicted: prediction.value,
        raised: prediction.raised,
        gives_output,
        confidence: prediction.state.confidence,
    })
}

/// Checks the search's candidates: at most `request.checks` of them, the
/// model's own (most voted first) and then the others in the order they
/// were made, the search's checked first, all within the request's budget
/// of seconds (the model's proposals included; a check still going when
/// the budget ends is cancelled). A candidate the model cannot answer for (an answer
/// that does not parse, an argument that does not bind) stays unchecked;
/// an engine failure ends the checks with a note.
pub(crate) fn check_candidates(
    model: &dyn Debugger,
    source: &Arc<Source>,
    request: &Request,
    search: &mut Search,
    started: Instant,
    cancel: &Cancel,
    notes: &mut Vec<String>,
) -> Result<(), DebugError> {
    let Some(wanted) = search.wanted.clone() else {
        return Ok(());
    };
    let mut order: Vec<usize> = (0..search.candidates.len()).collect();
    order.sort_by_key(|&index| {
        let candidate = &search.candidates[index];
        (
            candidate.origin != Origin::Model,
            std::cmp::Reverse(candidate.votes),
            candidate.order,
        )
    });
    order.truncate(request.checks);
    // Which candidates get checked is chosen above (the model's own come
    // first); the order they are checked in puts the search's first. A
    // budget that ends the checks early leaves the model's own candidates
    // ranked by their votes, as they would be unchecked, while a search
    // candidate left unchecked is not suggested at all: its check is the
    // one that can change the answer (on the CruxEval dev set the output
    // itself is the most often right candidate).
    order.sort_by_key(|&index| search.candidates[index].origin == Origin::Model);
    let deadline = started + request.budget.time;
    // The checks' own cancellation: the caller's, or the budget's end.
    let checks_cancel = Cancel::new();
    let done = Cancel::new();
    let mut checked = 0usize;
    let result = std::thread::scope(|scope| {
        scope.spawn(|| {
            while !done.is_cancelled() {
                if cancel.is_cancelled() || Instant::now() >= deadline {
                    checks_cancel.cancel();
                    return;
                }
                std::thread::sleep(std::time::Duration::from_millis(20));
            }
        });
        let result = (|| {
            for &index in &order {
                if checks_cancel.is_cancelled() {
                    return Err(DebugError::Cancelled);
                }
                let input = search.candidates[index].input.clone();
                match check_one(
                    model,
                    source,
                    &request.function,
                    &input,
                    &wanted,
                    &search.wanted_text,
                    &checks_cancel,
                ) {
                    Ok(check) => {
                        search.candidates[index].check = Some(check);
                        checked += 1;
                    }
                    Err(DebugError::Cancelled) => return Err(DebugError::Cancelled),
                    // This candidate's question could not be asked or
                    // answered (an argument that does not bind, an answer
                    // cut off).
                    Err(
                        DebugError::Malformed { .. }
                        | DebugError::CutOff { .. }
                        | DebugError::Entry(_)
                        | DebugError::NoAnswer
                        | DebugError::PromptTooLong { .. }
                        | DebugError::NoFunctionAt { .. },
                    ) => continue,
                    Err(error) => {
                        notes.push(format!("the model's checks stopped: {error}"));
                        return Ok(());
                    }
                }
            }
            Ok(())
        })();
        done.cancel();
        result
    });
    match result {
        Ok(()) => {}
        // The caller's cancellation is the caller's; the budget's end
        // leaves the checks made so far.
        Err(DebugError::Cancelled) if cancel.is_cancelled() => return Err(DebugError::Cancelled),
        Err(DebugError::Cancelled) => notes.push(format!(
            "the budget of {:.0} s ended the model's checks after {checked} of {}",
            request.budget.time.as_secs_f64(),
            order.len()
        )),
        Err(error) => return Err(error),
    }
    let gives = search
        .candidates
        .iter()
        .filter(|c| c.check.as_ref().is_some_and(|check| check.gives_output))
        .count();
    if checked > 0 {
        notes.push(format!(
            "not run: {checked} candidates checked by the model's prediction of what each returns, {gives} predicted to give the output (predictions, not runs)"
        ));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_check_is_worded_as_a_prediction_with_its_confidence() {
        let mut check = ModelCheck {
            predicted: Some("'abcdefgh'".into()),
            raised: false,
            gives_output: true,
            confidence: Some(Confidence {
                votes: 1,
                samples: 1,
                probability: Some(0.62),
            }),
        };
        assert_eq!(
            check.describe(30),
            "predicted to give it (0.62, likely), not run"
        );
        check.gives_output = false;
        check.confidence = None;
        assert_eq!(check.describe(6), "predicted to return 'abcd…, not run");
        check.raised = true;
        check.predicted = Some("ValueError".into());
        assert_eq!(check.describe(30), "predicted to raise ValueError, not run");
    }

    #[test]
    fn predicted_returns_are_compared_as_values() {
        let wanted = parse_literal("[1, 'a']").unwrap();
        assert!(same_value("[1,\"a\"]", &wanted, "[1, 'a']"));
        assert!(!same_value("[1, 'b']", &wanted, "[1, 'a']"));
        assert!(!same_value("(1, 'a')", &wanted, "[1, 'a']"));
        // Not a literal: compared as text.
        let object = parse_literal("0").unwrap();
        assert!(!same_value("<object at 0x...>", &object, "0"));
    }
}

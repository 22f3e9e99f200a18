//! From the model's raw samples to states: putting special tokens back into
//! the text, parsing, and voting among samples.

use ndb_grammar::text::{normalize_state, parse_state, print_state};
use ndb_grammar::{Locals, TextState};

/// One generated answer.
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct Sample {
    /// The answer with the special tokens written out.
    pub text: String,
    /// The generation stopped at the token limit.
    pub cut_off: bool,
    pub tokens: usize,
    /// The probability the model gave this answer, token by token (see
    /// [`sequence_probability`]); `None` when the engine reported none.
    pub probability: Option<f64>,
}

/// The probability of a whole answer from its tokens' log-probabilities
/// (base 10, as mistral.rs reports them): their product, or `None` when a
/// value is missing or not a finite log-probability.
pub(crate) fn sequence_probability(log10_probabilities: &[f32]) -> Option<f64> {
    if log10_probabilities.is_empty() {
        return None;
    }
    let mut sum = 0.0f64;
    for &value in log10_probabilities {
        if !value.is_finite() || value > 1e-3 {
            return None;
        }
        sum += f64::from(value.min(0.0));
    }
    Some(10f64.powf(sum))
}

/// Rebuilds the answer's text with its special tokens. mistral.rs gives the
/// whole answer decoded in one piece without special tokens (`full`), and
/// each token decoded alone with special tokens kept (`pieces`). Alone, a
/// token holding part of a multi-byte character decodes to U+FFFD, so the
/// ordinary text is taken from `full` and only the special tokens from
/// `pieces`.
pub(crate) fn merge_special_tokens(pieces: &[String], full: &str, special: &[&str]) -> String {
    let joined: String = pieces.concat();
    if !joined.contains('\u{fffd}') || full.contains('\u{fffd}') {
        return joined;
    }
    let mut out = String::new();
    let mut rest = full;
    let mut index = 0;
    while index < pieces.len() {
        let piece = &pieces[index];
        if special.contains(&piece.as_str()) {
            out.push_str(piece);
            index += 1;
            continue;
        }
        // A run of ordinary tokens: its text in `full` ends where the text
        // after the run (up to the next special token) begins.
        let end = pieces[index..]
            .iter()
            .position(|piece| special.contains(&piece.as_str()))
            .map_or(pieces.len(), |offset| index + offset);
        let run: String = pieces[index..end].concat();
        let take = if end == pieces.len() {
            rest.len()
        } else {
            run_length_in(rest, &run)
        };
        out.push_str(&rest[..take]);
        rest = &rest[take..];
        index = end;
    }
    out
}

/// How many bytes of `full` the run `run` (with U+FFFD where characters were
/// split) stands for: its characters are matched one by one, and each group
/// of U+FFFD swallows characters of `full` until the next known character.
fn run_length_in(full: &str, run: &str) -> usize {
    let mut position = 0;
    let mut run_chars = run.chars().peekable();
    while let Some(c) = run_chars.next() {
        if c == '\u{fffd}' {
            while run_chars.peek() == Some(&'\u{fffd}') {
                run_chars.next();
            }
            // Swallow at least one character, then up to the next known one.
            let mut swallowed = false;
            while let Some(actual) = full[position..].chars().next() {
                if swallowed && Some(&actual) == run_chars.peek() {
                    break;
                }
                if swallowed && run_chars.peek().is_none() {
                    break;
                }
                position += actual.len_utf8();
                swallowed = true;
            }
        } else if full[position..].starts_with(c) {
            position += c.len_utf8();
        }
    }
    position
}

/// One distinct answer and how many samples gave it.
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct Candidate {
    pub state: TextState,
    pub votes: usize,
    /// The first raw answer that gave it.
    pub text: String,
    /// The mean probability of the samples that gave it (`None` when a
    /// sample carried none).
    pub probability: Option<f64>,
}

/// Why a sample was not counted.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) enum Rejected {
    CutOff { text: String, tokens: usize },
    Malformed { text: String, errors: String },
}

/// Parses every sample and groups equal states (after normalisation), most
/// voted first; ties keep the order of first appearance.
pub(crate) fn vote(
    samples: &[Sample],
    previous_locals: Option<&Locals>,
) -> (Vec<Candidate>, Vec<Rejected>) {
    let mut candidates: Vec<(String, Candidate)> = Vec::new();
    let mut rejected = Vec::new();
    for sample in samples {
        if sample.cut_off {
            rejected.push(Rejected::CutOff {
                text: sample.text.clone(),
                tokens: sample.tokens,
            });
            continue;
        }
        let (state, _, errors) = parse_state(&sample.text, previous_locals);
        let Some(written) = state else {
            rejected.push(Rejected::Malformed {
                text: sample.text.clone(),
                errors: errors
                    .iter()
                    .map(|error| error.to_string())
                    .collect::<Vec<_>>()
                    .join("; "),
            });
            continue;
        };
        // Samples are grouped by their normal form, but the state keeps
        // its source line as the model wrote it (the file's line, with its
        // indentation, by the grammar): the next prompt prints it again, and
        // must print what the model was trained to read.
        let mut state = normalize_state(&written);
        let key = print_state(&state, None);
        if !state.src.is_empty() {
            state.src = written.src;
        }
        match candidates.iter_mut().find(|(existing, _)| *existing == key) {
            Some((_, candidate)) => {
                // A running mean over the samples that agree.
                candidate.probability = match (candidate.probability, sample.probability) {
                    (Some(mean), Some(p)) => Some(mean + (p - mean) / (candidate.votes + 1) as f64),
                    _ => None,
                };
                candidate.votes += 1;
            }
            None => candidates.push((
                key,
                Candidate {
                    state,
                    votes: 1,
                    text: sample.text.clone(),
                    probability: sample.probability,
                },
            )),
        }
    }
    let mut candidates: Vec<Candidate> = candidates.into_iter().map(|(_, c)| c).collect();
    candidates.sort_by_key(|c| std::cmp::Reverse(c.votes));
    (candidates, rejected)
}

#[cfg(test)]
mod tests {
    use super::*;

    const SPECIAL: &[&str] = &["<|line_sep|>", "<|arg_sep|>", "<|src_sep|>"];

    #[test]
    fn special_tokens_come_back_around_split_characters() {
        // "é" split over two byte tokens decodes alone as two U+FFFD.
        let pieces: Vec<String> = [
            "<|line_sep|>",
            "<|arg_sep|>",
            "{\"s\": \"caf",
            "\u{fffd}",
            "\u{fffd}",
            "\"}",
            "<|src_sep|>",
            "    s = 'café'",
        ]
        .iter()
        .map(|s| s.to_string())
        .collect();
        let full = "{\"s\": \"café\"}    s = 'café'";
        assert_eq!(
            merge_special_tokens(&pieces, full, SPECIAL),
            "<|line_sep|><|arg_sep|>{\"s\": \"café\"}<|src_sep|>    s = 'café'"
        );
    }

    #[test]
    fn plain_pieces_are_joined_as_they_are() {
        let pieces: Vec<String> = ["<|line_sep|>", "<|arg_sep|>", "{}", "<|src_sep|>", "x"]
            .iter()
            .map(|s| s.to_string())
            .collect();
        assert_eq!(
            merge_special_tokens(&pieces, "{}x", SPECIAL),
            "<|line_sep|><|arg_sep|>{}<|src_sep|>x"
        );
    }

    fn sample(text: &str) -> Sample {
        Sample {
            text: text.to_string(),
            cut_off: false,
            tokens: 10,
            probability: Some(0.5),
        }
    }

    #[test]
    fn an_answer_is_as_probable_as_its_tokens_together() {
        let p = sequence_probability(&[0.0, -1.0, -std::f32::consts::LOG10_2]).unwrap();
        assert!((p - 0.05).abs() < 1e-6, "{p}");
        assert_eq!(sequence_probability(&[]), None);
        assert_eq!(sequence_probability(&[-0.1, f32::NAN]), None);
        // A log-probability above 0 is no log-probability: not guessed at.
        assert_eq!(sequence_probability(&[0.5]), None);
    }

    #[test]
    fn votes_count_equal_states_and_reject_broken_ones() {
        let a = "<|return_sep|><|src_sep|>    return n<|arg_sep|>\"5\"";
        let b = "<|return_sep|><|src_sep|>    return n<|arg_sep|>\"6\"";
        let samples = vec![
            sample(b),
            sample(a),
            sample(&format!("{a}<|action_sep|>")),
            sample("<|return_sep|><|src_sep|>"),
            Sample {
                cut_off: true,
                ..sample("<|return_sep|><|src_sep|>    return n<|arg_sep|>\"55555")
            },
        ];
        let (candidates, rejected) = vote(&samples, None);
        let summary: Vec<_> = candidates
            .iter()
            .map(|c| (c.state.value.clone().unwrap(), c.votes))
            .collect();
        assert_eq!(summary, [("5".to_string(), 2), ("6".to_string(), 1)]);
        assert_eq!(rejected.len(), 2);
        assert!(matches!(rejected[0], Rejected::Malformed { .. }));
        assert!(matches!(rejected[1], Rejected::CutOff { tokens: 10, .. }));
    }
}

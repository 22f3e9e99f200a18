//! The fuzz driver of the text-language parser: random and mutated inputs
//! (seeded SplitMix64, so a failure is reproduced by its seed and index)
//! through `parse_trajectory` and `parse_state`, checking that neither
//! panics nor takes long, that error offsets lie inside the input, that a
//! state is returned exactly when there is no error, and that a trajectory
//! read without errors prints to text that reads back the same.
//!
//! A short run is part of the tests. The long run (docs/fuzzing.md):
//! `NDB_FUZZ_INPUTS=1000000 nice -n 19 cargo test --workspace -j 1 --test fuzz -- --nocapture`
//! (`NDB_FUZZ_SEED` picks another seed).

use std::time::{Duration, Instant};

use ndb_grammar::text::{parse_state, parse_trajectory, print_trajectory, SPECIAL_TOKENS};
use ndb_grammar::SplitMix64;

/// Printed trajectories of the snapshot tests: valid inputs to mutate.
const SEEDS: [&str; 2] = [
    include_str!("snapshots/text_language__forward_trajectory_snapshot.snap"),
    include_str!("snapshots/text_language__inverse_trajectory_snapshot.snap"),
];

/// Inputs of the short run inside `cargo test`.
const SHORT_RUN: usize = 20_000;
/// The slowest one input may be before it counts as a hang.
const SLOW_INPUT: Duration = Duration::from_secs(1);

const FRAGMENTS: &[&str] = &[
    "{",
    "}",
    "\"",
    ":",
    ",",
    "\\",
    "\\u",
    "\\ud83d",
    "\\ude00",
    "\\ud800",
    "\"..\"",
    "\"x\"",
    " ",
    "\n",
    "\r\n",
    "\t",
    "7",
    "-1",
    "<|",
    "|>",
    "<|nope|>",
    "{\"..\": \"..\"",
    "{\"a\": \"1\"}",
    "def f(x):",
    "    return x",
    "é",
    "🦀",
    "\u{0}",
    "\u{feff}",
    "...<+3>",
];

/// The snapshot's body (after insta's front matter).
fn body(snapshot: &str) -> &str {
    snapshot
        .splitn(3, "---\n")
        .nth(2)
        .unwrap_or(snapshot)
        .trim_end()
}

fn below(random: &mut SplitMix64, bound: usize) -> usize {
    if bound == 0 {
        0
    } else {
        (random.next_u64() % bound as u64) as usize
    }
}

fn pick<'a>(random: &mut SplitMix64, items: &[&'a str]) -> &'a str {
    items[below(random, items.len())]
}

/// Random pieces of the language: tokens, JSON fragments, random bytes.
fn soup(random: &mut SplitMix64) -> Vec<u8> {
    let mut text = Vec::new();
    for _ in 0..below(random, 60) {
        match below(random, 5) {
            0 | 1 => text.extend_from_slice(pick(random, SPECIAL_TOKENS).as_bytes()),
            2 | 3 => text.extend_from_slice(pick(random, FRAGMENTS).as_bytes()),
            _ => text.push(random.next_u64() as u8),
        }
    }
    text
}

/// A valid text changed in one to eight places.
fn mutated(random: &mut SplitMix64, seeds: &[&str]) -> Vec<u8> {
    let mut text = pick(random, seeds).as_bytes().to_vec();
    for _ in 0..1 + below(random, 8) {
        let at = below(random, text.len() + 1);
        match below(random, 8) {
            0 => {
                if at < text.len() {
                    text[at] ^= 1 << below(random, 8);
                }
            }
            1 => {
                let end = (at + below(random, 40)).min(text.len());
                text.drain(at..end);
            }
            2 => {
                let token = pick(random, SPECIAL_TOKENS);
                text.splice(at..at, token.bytes());
            }
            3 => {
                let fragment = pick(random, FRAGMENTS);
                text.splice(at..at, fragment.bytes());
            }
            4 => {
                let end = (at + below(random, 200)).min(text.len());
                let copy = text[at..end].to_vec();
                let to = below(random, text.len() + 1);
                text.splice(to..to, copy);
            }
            5 => text.truncate(at),
            6 => {
                let other = pick(random, seeds).as_bytes();
                let from = below(random, other.len());
                text.splice(at.., other[from..].iter().copied());
            }
            _ => text.insert(at, random.next_u64() as u8),
        }
    }
    text
}

fn check(text: &str) {
    let (trajectory, errors) = parse_trajectory(text);
    for error in &errors {
        assert!(error.offset <= text.len(), "{error:?}");
    }
    if errors.is_empty() {
        let printed = print_trajectory(&trajectory);
        let (again, errors) = parse_trajectory(&printed);
        assert!(
            errors.is_empty(),
            "the printed form does not read back: {errors:?}\n{printed}"
        );
        assert_eq!(
            again, trajectory,
            "the printed form reads back differently:\n{printed}"
        );
    }
    let previous = vec![("x".to_string(), "1".to_string())];
    for base in [None, Some(&previous)] {
        let (state, _, errors) = parse_state(text, base);
        assert_eq!(state.is_some(), errors.is_empty());
        for error in &errors {
            assert!(error.offset <= text.len(), "{error:?}");
        }
    }
}

#[test]
fn the_parser_survives_random_and_mutated_inputs() {
    let inputs = std::env::var("NDB_FUZZ_INPUTS")
        .ok()
        .and_then(|text| text.parse().ok())
        .unwrap_or(SHORT_RUN);
    let seed = std::env::var("NDB_FUZZ_SEED")
        .ok()
        .and_then(|text| text.parse().ok())
        .unwrap_or(16);
    let seeds: Vec<&str> = SEEDS.iter().map(|snapshot| body(snapshot)).collect();
    for valid in &seeds {
        let (_, errors) = parse_trajectory(valid);
        assert!(errors.is_empty(), "a seed does not parse: {errors:?}");
    }
    let mut random = SplitMix64::new(seed);
    let started = Instant::now();
    let (mut slowest, mut bytes, mut clean) = (Duration::ZERO, 0usize, 0usize);
    for index in 0..inputs {
        let raw = if index % 3 == 0 {
            soup(&mut random)
        } else {
            mutated(&mut random, &seeds)
        };
        let text = String::from_utf8_lossy(&raw);
        bytes += text.len();
        let one = Instant::now();
        let outcome = std::panic::catch_unwind(|| check(&text));
        let took = one.elapsed();
        if let Err(panic) = outcome {
            let message = panic
                .downcast_ref::<String>()
                .cloned()
                .or_else(|| panic.downcast_ref::<&str>().map(|s| s.to_string()))
                .unwrap_or_default();
            panic!("input {index} of seed {seed} failed: {message}\ninput: {text:?}");
        }
        assert!(
            took < SLOW_INPUT,
            "input {index} of seed {seed} took {took:?}: {text:?}"
        );
        slowest = slowest.max(took);
        clean += usize::from(parse_trajectory(&text).1.is_empty());
    }
    eprintln!(
        "parser fuzz: {inputs} inputs ({} MB) from seed {seed} in {:.1} s, slowest {:?}, {clean} read without errors",
        bytes / 1_000_000,
        started.elapsed().as_secs_f64(),
        slowest
    );
}

//! Trajectories: a start state and the actions taken from it, sampled with
//! the random policy of the design reference, and their text form.
//!
//! Forward policy: at each step, with probability 0.5 draw from
//! {step_into 0.35, step_over 0.1, step_return 0.2, breakpoint 0.1,
//! continue 0.05} (renormalised), otherwise from {step_into 0.5,
//! step_over 0.5}; the start is a `call` node drawn uniformly. A breakpoint
//! targets, with probability 0.8, a line that some later line node has, and
//! otherwise any line of the current function (which may never be reached).
//! Inverse policy: the same with inv_step_into for step_into, inv_step_over
//! for step_over and inv_step_call for step_return (breakpoint and continue
//! have no inverse), starting from a `return` node or the exit.

use crate::action::Action;
use crate::state::EventKind;
use crate::trajectory::{TextStep, TextTrajectory};
use crate::tree::{Cursor, StateTree};

/// A small deterministic random generator (SplitMix64): the same seed gives
/// the same trajectories on every platform and version.
#[derive(Clone, Debug)]
pub struct SplitMix64 {
    state: u64,
}

impl SplitMix64 {
    pub fn new(seed: u64) -> SplitMix64 {
        SplitMix64 { state: seed }
    }

    pub fn next_u64(&mut self) -> u64 {
        self.state = self.state.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.state;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    /// A float in [0, 1).
    pub fn next_f64(&mut self) -> f64 {
        (self.next_u64() >> 11) as f64 / (1u64 << 53) as f64
    }

    /// An index in 0..len (len > 0).
    pub fn below(&mut self, len: usize) -> usize {
        (self.next_u64() % len as u64) as usize
    }

    fn weighted<T: Copy>(&mut self, choices: &[(T, f64)]) -> T {
        let total: f64 = choices.iter().map(|(_, weight)| weight).sum();
        let mut point = self.next_f64() * total;
        for &(choice, weight) in choices {
            if point < weight {
                return choice;
            }
            point -= weight;
        }
        choices[choices.len() - 1].0
    }
}

/// A start state and the actions taken from it, with every state reached.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Walk {
    pub start: Cursor,
    pub steps: Vec<(Action, Cursor)>,
}

impl Walk {
    /// Applies `actions` from `start`.
    pub fn new(tree: &StateTree, start: Cursor, actions: &[Action]) -> Walk {
        let reached = tree.walk(start, actions);
        Walk {
            start,
            steps: actions.iter().copied().zip(reached).collect(),
        }
    }

    /// Repeats `action` from `start` until the exit (at most once per
    /// recorded event, and once more to reach the exit).
    pub fn until_exit(tree: &StateTree, start: Cursor, action: Action) -> Walk {
        let mut cursor = start;
        let mut steps = Vec::new();
        while cursor != Cursor::Exit && steps.len() <= tree.events().len() {
            cursor = tree.apply(cursor, action);
            steps.push((action, cursor));
        }
        Walk { start, steps }
    }

    pub fn actions(&self) -> Vec<Action> {
        self.steps.iter().map(|&(action, _)| action).collect()
    }

    /// The walk in the text language's terms. A state is written inverse when
    /// an inverse action reached it (or, for the start, when `inverse_start`).
    pub fn to_text(&self, tree: &StateTree, inverse_start: bool) -> TextTrajectory {
        let start = tree.text_state(self.start, inverse_start);
        let mut previous_cursor = self.start;
        let mut previous_state = start.clone();
        let mut steps = Vec::with_capacity(self.steps.len());
        for &(action, cursor) in &self.steps {
            let state = tree.text_state(cursor, action.is_inverse());
            let delta = tree.same_frame_step(previous_cursor, action, cursor)
                && crate::text::delta_possible(&previous_state, &state);
            steps.push(TextStep {
                action: tree.text_action(action),
                state: state.clone(),
                delta,
            });
            previous_cursor = cursor;
            previous_state = state;
        }
        TextTrajectory {
            source: tree.trace().source.clone(),
            start,
            steps,
            ended: true,
        }
    }
}

/// Limits of sampled trajectories.
#[derive(Clone, Copy, Debug)]
pub struct SamplerConfig {
    /// At most this many actions per trajectory.
    pub max_steps: usize,
}

impl Default for SamplerConfig {
    fn default() -> SamplerConfig {
        SamplerConfig { max_steps: 12 }
    }
}

const JUMP_SHARE: f64 = 0.5;

/// Samples one forward trajectory; `None` when the run recorded no call.
pub fn sample_forward(
    tree: &StateTree,
    rng: &mut SplitMix64,
    config: SamplerConfig,
) -> Option<Walk> {
    let calls: Vec<usize> = kinds(tree, EventKind::Call);
    if calls.is_empty() {
        return None;
    }
    let start = Cursor::Event(calls[rng.below(calls.len())]);
    Some(sample_forward_from(tree, start, rng, config))
}

/// Samples one forward trajectory from a `call` node other than the entry
/// call; `None` when the run recorded no other call. Datasets that write
/// the entry call's trajectories themselves (one per first action, see
/// [`sample_forward_first`]) draw the rest with this, so that every first
/// action from the entry call is seen equally often.
pub fn sample_forward_inner(
    tree: &StateTree,
    rng: &mut SplitMix64,
    config: SamplerConfig,
) -> Option<Walk> {
    let entry = tree.start().event_index();
    let calls: Vec<usize> = kinds(tree, EventKind::Call)
        .into_iter()
        .filter(|&index| Some(index) != entry)
        .collect();
    if calls.is_empty() {
        return None;
    }
    let start = Cursor::Event(calls[rng.below(calls.len())]);
    Some(sample_forward_from(tree, start, rng, config))
}

/// Samples forward actions from a given start (the pdb agreement harness
/// starts every trajectory at the entry call, where pdb starts).
pub fn sample_forward_from(
    tree: &StateTree,
    start: Cursor,
    rng: &mut SplitMix64,
    config: SamplerConfig,
) -> Walk {
    let mut walk = Walk {
        start,
        steps: Vec::new(),
    };
    continue_forward(tree, &mut walk, rng, config);
    walk
}

/// A forward trajectory from `start` whose first action is `first` (a
/// breakpoint's line is drawn as the policy draws it), continued with the
/// random policy.
pub fn sample_forward_first(
    tree: &StateTree,
    start: Cursor,
    first: Action,
    rng: &mut SplitMix64,
    config: SamplerConfig,
) -> Walk {
    let action = match first {
        Action::Breakpoint(_) => Action::Breakpoint(breakpoint_target(tree, start, rng)),
        other => other,
    };
    let mut walk = Walk {
        start,
        steps: vec![(action, tree.apply(start, action))],
    };
    continue_forward(tree, &mut walk, rng, config);
    walk
}

fn continue_forward(
    tree: &StateTree,
    walk: &mut Walk,
    rng: &mut SplitMix64,
    config: SamplerConfig,
) {
    let mut cursor = walk.steps.last().map_or(walk.start, |&(_, cursor)| cursor);
    while walk.steps.len() < config.max_steps && cursor != Cursor::Exit {
        let action = if rng.next_f64() < JUMP_SHARE {
            rng.weighted(&[
                (Action::StepInto, 0.35),
                (Action::StepOver, 0.1),
                (Action::StepReturn, 0.2),
                (Action::Breakpoint(0), 0.1),
                (Action::Continue, 0.05),
            ])
        } else {
            rng.weighted(&[(Action::StepInto, 0.5), (Action::StepOver, 0.5)])
        };
        let action = match action {
            Action::Breakpoint(_) => Action::Breakpoint(breakpoint_target(tree, cursor, rng)),
            other => other,
        };
        cursor = tree.apply(cursor, action);
        walk.steps.push((action, cursor));
    }
}

/// Samples one inverse trajectory, starting at a `return` node or the exit.
pub fn sample_inverse(tree: &StateTree, rng: &mut SplitMix64, config: SamplerConfig) -> Walk {
    let returns = kinds(tree, EventKind::Return);
    let start = if returns.is_empty() || rng.next_f64() < 0.1 {
        Cursor::Exit
    } else {
        Cursor::Event(returns[rng.below(returns.len())])
    };
    let mut cursor = start;
    let mut steps = Vec::new();
    while steps.len() < config.max_steps && cursor != Cursor::ExitEntry {
        let action = if rng.next_f64() < JUMP_SHARE {
            rng.weighted(&[
                (Action::InvStepInto, 0.35),
                (Action::InvStepOver, 0.1),
                (Action::InvStepCall, 0.2),
            ])
        } else {
            rng.weighted(&[(Action::InvStepInto, 0.5), (Action::InvStepOver, 0.5)])
        };
        cursor = tree.apply(cursor, action);
        steps.push((action, cursor));
        if action == Action::InvStepCall && rng.next_f64() < 0.5 {
            // Suggesting inputs ends at the call; stop there half the time.
            break;
        }
    }
    Walk { start, steps }
}

fn kinds(tree: &StateTree, kind: EventKind) -> Vec<usize> {
    tree.events()
        .iter()
        .enumerate()
        .filter(|(_, event)| event.kind == kind)
        .map(|(index, _)| index)
        .collect()
}

fn breakpoint_target(tree: &StateTree, cursor: Cursor, rng: &mut SplitMix64) -> u32 {
    let events = tree.events();
    let after = cursor.event_index().map_or(0, |index| index + 1);
    let mut future: Vec<u32> = events[after.min(events.len())..]
        .iter()
        .filter(|event| event.kind == EventKind::Line)
        .map(|event| event.line)
        .collect();
    future.sort_unstable();
    future.dedup();
    if !future.is_empty() && rng.next_f64() < 0.8 {
        return future[rng.below(future.len())];
    }
    // Any line of the current function: from its call line to the next
    // function's start or the end of the file.
    let first = cursor
        .event_index()
        .map(|index| events[tree.level_start(index)].line)
        .unwrap_or(1);
    let last = tree.trace().source.lines().count().max(1) as u32;
    let span = (last.saturating_sub(first) + 1).min(40);
    first + (rng.below(span as usize) as u32)
}

//! Trajectories as the text language sees them: states identified by their
//! source text instead of line numbers, actions, and whether a state's locals
//! are written as a delta of the previous state's.

use crate::state::Locals;

/// The event of a state in the text language. Each has a forward and an
/// inverse spelling, except `LineCall` (inverse only) and the exits.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum TextEvent {
    Call,
    Line,
    Return,
    Exception,
    /// Inverse tree only: a line that made a call, reached from inside it.
    LineCall,
    ExitNormal,
    ExitError,
    ExitNever,
    /// Inverse tree only: going back past the entry call.
    ExitEntry,
}

/// One state as the text language carries it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TextState {
    pub event: TextEvent,
    /// Written with inverse markers (`<|inv_line_sep|>`, ...).
    pub inverse: bool,
    /// The source line of the stop (the `def` line for calls); empty for exits.
    pub src: String,
    /// The full locals for call, line and line-call states; empty otherwise.
    pub locals: Locals,
    /// The value of return and exception states.
    pub value: Option<String>,
}

/// An action as the text language carries it: breakpoints name their target
/// by source text, plus the 1-based occurrence among identical lines of the
/// file when the text is not unique.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum TextAction {
    StepInto,
    StepOver,
    StepReturn,
    Breakpoint {
        src: String,
        occurrence: Option<u32>,
    },
    Continue,
    InvStepInto,
    InvStepOver,
    InvStepCall,
}

impl TextAction {
    /// Whether the action runs backwards (an `inv_` action).
    pub fn is_inverse(&self) -> bool {
        matches!(
            self,
            TextAction::InvStepInto | TextAction::InvStepOver | TextAction::InvStepCall
        )
    }

    /// The action's name, as the training data tags states with it.
    pub fn name(&self) -> &'static str {
        match self {
            TextAction::StepInto => "step_into",
            TextAction::StepOver => "step_over",
            TextAction::StepReturn => "step_return",
            TextAction::Breakpoint { .. } => "breakpoint",
            TextAction::Continue => "continue",
            TextAction::InvStepInto => "inv_step_into",
            TextAction::InvStepOver => "inv_step_over",
            TextAction::InvStepCall => "inv_step_call",
        }
    }
}

/// One action and the state it led to.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TextStep {
    pub action: TextAction,
    pub state: TextState,
    /// The state's locals are written as a delta of the previous state's:
    /// only changed names plus one `"..": ".."` entry.
    pub delta: bool,
}

/// A whole sequence: the source, the start state and the steps after it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TextTrajectory {
    pub source: String,
    pub start: TextState,
    pub steps: Vec<TextStep>,
    /// The sequence ends with `<|trace_end|>`.
    pub ended: bool,
}

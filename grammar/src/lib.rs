//! The neural debugger's world as pure data: states, actions, the state tree
//! and its action semantics (agreeing with real pdb), the inverse tree, the
//! trajectory sampler, the text language the model reads and writes, and the
//! Lark grammar that constrains the model. No IO, no model, no protocol.

pub mod action;
pub mod lark;
pub mod locate;
pub mod sampler;
pub mod source;
pub mod state;
pub mod text;
pub mod trajectory;
pub mod tree;

pub use action::{Action, ActionParseError};
pub use sampler::{
    sample_forward, sample_forward_from, sample_inverse, SamplerConfig, SplitMix64, Walk,
};
pub use source::Source;
pub use state::{Event, EventKind, Exit, ExitStatus, Locals, StateView, Trace};
pub use trajectory::{TextAction, TextEvent, TextState, TextStep, TextTrajectory};
pub use tree::{Cursor, StateTree};

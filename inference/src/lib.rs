//! How the next debugger state is obtained, answering "what state comes
//! next": the real tracer (the user's code run under `sys.settrace` in a
//! bounded child process) and the neural debugger (a model served in process
//! by mistral.rs), both behind [`debugger::Debugger`], and the operations
//! users ask for on top of it ([`ops`]), with the one suggestion engine
//! ([`suggest`]).

pub mod cache;
pub mod choice;
pub mod data;
pub mod debugger;
pub mod engine;
pub mod entry;
pub mod json;
pub mod models;
pub mod neural;
pub mod ops;
pub mod python;
pub mod stdio;
pub mod suggest;
pub mod tracer;

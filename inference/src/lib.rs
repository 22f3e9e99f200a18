//! How the next debugger state is obtained, answering "what state comes next":
//! the real tracer now (the user's code run under `sys.settrace` in a bounded
//! child process), the neural debugger later.

pub mod json;
pub mod tracer;

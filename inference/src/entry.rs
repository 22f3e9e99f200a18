//! The entry call's first state without running the user's code.
//!
//! The neural debugger starts from the state the real tracer's first event
//! would have: the entry function's `call` event, its arguments as locals.
//! [`bind_entry_call`] obtains that state without executing the file: the
//! tracing script's `--bind` mode parses the file, finds the function and
//! binds the call's arguments to its parameters the way Python does. It runs
//! in the same bounded child process as the tracer (same interpreter, same
//! time and memory limits, `PYTHONHASHSEED=0`) and prints the values with the
//! same bounded `repr()`, so the locals are text-for-text what the tracer
//! records.
//!
//! What can be bound without running code:
//!
//! - the callee is a `def` or `async def` at the top level of the file (the
//!   last binding of the name, not inside an `if` or `try`), a method
//!   `Class.method` / `Outer.Inner.method` of plain classes (a `classmethod`
//!   gets `cls`), or a `name = lambda ...` at the top level; its only
//!   decorators are `functools.lru_cache` / `functools.cache` (and
//!   `staticmethod` / `classmethod` on methods). A decorator of the file
//!   (whose wrapper would be the first frame) is refused, as is calling a
//!   class;
//! - every argument, and every default value of the function, is a literal:
//!   constants, containers of literals, `-1`, `1+2j`, `*[...]` and
//!   `**{...}`, calls of `set`, `frozenset`, `dict`, `list`, `tuple`,
//!   `float` (unless the file rebinds those names), lambdas (their repr is
//!   `<function <lambda> at 0x...>`), and names the file binds once at its
//!   top level to such a literal, to an undecorated `def` or to a plain
//!   class. A mutable value (a list default, a name bound to a dict) is
//!   refused when the file's top level could change it first: when it calls
//!   code of the file or reads that name again. The body of
//!   `if __name__ == "__main__":` never runs under the tracer and is ignored.
//!
//! Values are evaluated as the tracer evaluates them (compiled, in a
//! namespace of only those builtins), not with `ast.literal_eval`, whose set
//! literals can iterate in another order.
//!
//! The locals are in the order `f_locals` has them at the call event, taken
//! from the compiled (never run) code object: positional parameters,
//! keyword-only ones, `*args`, `**kwargs`, then `__class__` for a method
//! that uses `super()` or `__class__` (Python 3.8 to 3.10 put parameters
//! captured by an inner function last; the binder follows the interpreter it
//! runs on, and the tests pass on 3.8, 3.10, 3.11, 3.12 and 3.13). A
//! generator or coroutine function binds like any other (its first `call`
//! state when it first runs), although tracing such an entry call records
//! no events.

use ndb_grammar::Locals;

use crate::tracer::{bind_source, TracerConfig, TracerError};

/// The entry call's first state: what the tracer's first event (a `call`
/// event at depth 0) would show.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct EntryBinding {
    /// The called function's `co_name` (`<lambda>` for a lambda).
    pub function: String,
    /// The line of the call event: the `def` line, or the first
    /// decorator's line when the function is decorated.
    pub line: u32,
    /// The parameters with their bounded `repr()` values, in `f_locals`
    /// order.
    pub locals: Locals,
}

/// Bind `entry_call` (such as `f([1, 2], k=3)`) on the Python file `source`
/// without running any of it. Errors are [`TracerError::Syntax`] (the file
/// does not compile; the message names the line and the file `<source>`),
/// [`TracerError::EntryCall`] (the call does not parse, names no function of
/// the file, has an argument that is not a literal, or does not fit the
/// parameters) and the tracer's process errors (Python not found, time
/// limit).
pub fn bind_entry_call(
    source: &str,
    entry_call: &str,
    config: &TracerConfig,
) -> Result<EntryBinding, TracerError> {
    let bound = bind_source(source, entry_call, config)?;
    Ok(EntryBinding {
        function: bound.function,
        line: bound.line,
        locals: bound.locals,
    })
}

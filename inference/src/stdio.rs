//! Keeping stdout for results and protocol messages only.
//!
//! Some dependencies print to stdout (mistral.rs prints GGUF metadata while
//! loading). A protocol server cannot allow a single stray byte there, and a
//! temporary redirection would race with the server's own writer thread. So
//! the front end calls [`reserve_stdout`] once, first thing: it moves the
//! real stdout to a new descriptor that only the caller writes to, and points
//! descriptor 1 at stderr for everything else in the process.

use std::fs::File;
use std::io;

/// Takes the process's stdout for the caller: returns a `File` on the
/// original stdout and makes descriptor 1 a copy of stderr, so any other
/// output meant for stdout lands on stderr. Call it once, before loading a
/// model or starting threads.
#[cfg(unix)]
pub fn reserve_stdout() -> io::Result<File> {
    use std::os::fd::FromRawFd;
    // SAFETY: plain descriptor calls; `dup` returns a new descriptor that we
    // own and hand to `File`, and `dup2` only retargets descriptor 1.
    unsafe {
        let saved = libc::dup(1);
        if saved < 0 {
            return Err(io::Error::last_os_error());
        }
        if libc::dup2(2, 1) < 0 {
            let error = io::Error::last_os_error();
            libc::close(saved);
            return Err(error);
        }
        Ok(File::from_raw_fd(saved))
    }
}

#[cfg(not(unix))]
pub fn reserve_stdout() -> io::Result<File> {
    Err(io::Error::new(
        io::ErrorKind::Unsupported,
        "reserving stdout is implemented for Unix only",
    ))
}

//! A spinner on stderr for command-line work that takes over a second
//! (loading the model, predicting, searching for inputs). Only on a
//! terminal: redirected stderr gets no control characters, and stdout is
//! never touched (it carries the answer).

use std::io::{IsTerminal, Write};
use std::sync::mpsc::{self, RecvTimeoutError};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

/// How long work runs before the spinner shows.
const DELAY: Duration = Duration::from_secs(1);
const FRAMES: [char; 10] = ['⠋', '⠙', '⠹', '⠸', '⠼', '⠴', '⠦', '⠧', '⠇', '⠏'];

/// Spins while alive; dropping it (or [`Spinner::finish`]) clears the line.
pub struct Spinner {
    stop: Option<mpsc::Sender<()>>,
    thread: Option<JoinHandle<()>>,
}

impl Spinner {
    /// Starts a spinner labelled `message` (such as `predicting`), shown
    /// after a second when stderr is a terminal.
    pub fn start(message: impl Into<String>) -> Spinner {
        if !std::io::stderr().is_terminal() || std::env::var_os("NDB_NO_SPINNER").is_some() {
            return Spinner {
                stop: None,
                thread: None,
            };
        }
        let message = message.into();
        let (stop, stopped) = mpsc::channel::<()>();
        let thread = std::thread::spawn(move || {
            let started = Instant::now();
            if !matches!(stopped.recv_timeout(DELAY), Err(RecvTimeoutError::Timeout)) {
                return;
            }
            let mut stderr = std::io::stderr();
            for frame in FRAMES.iter().cycle() {
                let _ = write!(
                    stderr,
                    "\r{frame} ndb: {message} ({:.0} s)",
                    started.elapsed().as_secs_f64()
                );
                let _ = stderr.flush();
                if !matches!(
                    stopped.recv_timeout(Duration::from_millis(100)),
                    Err(RecvTimeoutError::Timeout)
                ) {
                    break;
                }
            }
            // Clear the line the spinner drew.
            let _ = write!(stderr, "\r\x1b[2K");
            let _ = stderr.flush();
        });
        Spinner {
            stop: Some(stop),
            thread: Some(thread),
        }
    }

    /// Stops and clears the spinner now.
    pub fn finish(self) {}
}

impl Drop for Spinner {
    fn drop(&mut self) {
        if let Some(stop) = self.stop.take() {
            let _ = stop.send(());
        }
        if let Some(thread) = self.thread.take() {
            let _ = thread.join();
        }
    }
}

//! The real tracer: runs one entry call of a Python file under `sys.settrace`
//! in a bounded child process and turns what it reports into a
//! [`ndb_grammar::Trace`].
//!
//! The tracing script, `ndb_tracer.py`, is compiled into the binary and run as
//! `PYTHON -B -c <script> --file=PATH --call=EXPR --max-events=N ...`, so
//! nothing has to be installed next to the binary. It writes one JSON object
//! per line on its original stdout (the protocol channel; the user's own
//! output is captured into the exit line) in this order: `ready` (the
//! interpreter started the script), an `error` (setup failed: syntax, entry
//! call, top level) or `start` (tracing begins), one `event` per call, line,
//! return and exception of the file's frames, and one `exit`. The child runs
//! with `PYTHONHASHSEED=0` so set and dict orders of strings are reproducible.
//!
//! The run is bounded on both sides: the script stops itself at the event,
//! time and memory limits (writing an `exit` line with status `never`), and
//! this side kills it a little after the time limit and when its protocol
//! output grows past a bound. Events received before a kill or a crash are
//! kept; the exit is then made up here.
//!
//! The same script has a `--bind` mode that runs nothing of the file: it
//! parses it, binds the entry call's literal arguments to the function's
//! parameters and writes `ready` and one `binding` line (or an `error`), the
//! state the first `call` event would have. [`crate::entry`] wraps it.
//!
//! Every run is confined by [`sandbox`] before the interpreter starts: a
//! fresh working directory that is the only place it may write, no network,
//! no new privileges, no secrets in its environment.

mod protocol;
pub mod sandbox;

use std::ffi::OsString;
use std::io::{self, BufRead, BufReader, Read};
use std::path::{Path, PathBuf};
use std::process::{Child, ChildStderr, ChildStdout, Command, Stdio};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::mpsc::{self, Receiver, RecvTimeoutError, Sender};
use std::sync::{Arc, Mutex};
use std::thread;
use std::time::{Duration, Instant};

use ndb_grammar::{Event, Exit, ExitStatus, Locals, Trace};

use protocol::{parse_line, MalformedLine, ProtocolLine};

pub use sandbox::{SandboxPolicy, SandboxReport, SandboxRule};

/// The text of the tracing script.
pub const TRACER_SCRIPT: &str = include_str!("ndb_tracer.py");

/// The file name [`write_tracer_script`] gives the script.
pub const TRACER_SCRIPT_FILE_NAME: &str = "ndb_tracer.py";

/// How long after the time limit the child is killed when it has not
/// stopped itself (it checks the limit only between events).
const KILL_GRACE: Duration = Duration::from_secs(1);
/// How often the child is polled while no output arrives.
const POLL_INTERVAL: Duration = Duration::from_millis(10);
/// How long output still in the pipe is awaited once the child has ended.
const DRAIN_TIMEOUT: Duration = Duration::from_millis(500);
/// The most of the child's stderr kept (its end: that is where a traceback
/// or a crash message is).
const MAX_STDERR_BYTES: usize = 64 * 1024;
/// The most of stderr quoted in an error message.
const STDERR_EXCERPT_BYTES: usize = 2_000;

/// Bounds and settings of one traced run.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TracerConfig {
    /// The Python interpreter (3.8 or newer) that runs the user's code.
    pub python: PathBuf,
    /// The run ends `never` when one more event would exceed this.
    pub max_events: usize,
    /// Wall-clock limit of the whole child process (loading included).
    pub time_limit: Duration,
    /// Address-space limit (`RLIMIT_AS`) of the child; 0 sets none.
    pub memory_limit_bytes: u64,
    /// The most of the program's stdout kept; the rest is counted.
    pub max_stdout_bytes: usize,
    /// The most protocol output read before the child is killed.
    pub max_protocol_bytes: usize,
    /// Longest `repr()` text of one leaf value before it is cut.
    pub max_repr_chars: usize,
    /// Most items of one container shown.
    pub max_items: usize,
    /// Whether a run goes ahead when the kernel lacks a sandbox rule.
    pub sandbox: SandboxPolicy,
}

impl Default for TracerConfig {
    fn default() -> Self {
        TracerConfig {
            python: PathBuf::from("python3"),
            max_events: 10_000,
            time_limit: Duration::from_secs(10),
            memory_limit_bytes: 1 << 30,
            max_stdout_bytes: 64 * 1024,
            max_protocol_bytes: 64 * 1024 * 1024,
            max_repr_chars: 200,
            max_items: 50,
            sandbox: SandboxPolicy::BestEffort,
        }
    }
}

/// Why no trace could be recorded. A run that starts and then fails, loops
/// or dies is not an error: it is a [`Trace`] whose exit says so.
#[derive(Debug, thiserror::Error)]
pub enum TracerError {
    #[error("could not start Python interpreter `{python}`: {reason} (use --python)")]
    PythonNotFound { python: String, reason: String },
    /// The file does not compile; the message names the line.
    #[error("{0}")]
    Syntax(String),
    /// The entry call does not parse, is not a call, names nothing, is not
    /// callable, or evaluating its arguments raised.
    #[error("{0}")]
    EntryCall(String),
    /// The file's top level raised, died or did not finish.
    #[error("{0}")]
    Load(String),
    #[error("the entry call `{entry_call}` ran no code of the traced file")]
    NoEvents { entry_call: String },
    #[error("malformed tracer output: {0}")]
    Protocol(String),

    /// Also the sandbox's refusals and failures: the I/O error then holds a
    /// [`sandbox::SandboxError`] ([`TracerError::sandbox_error`] finds it).
    #[error("{}", describe_io_error(.0))]
    Io(#[from] io::Error),
}

impl TracerError {
    /// The sandbox's refusal or failure behind this error, if that is what
    /// it is (nothing ran then).
    pub fn sandbox_error(&self) -> Option<&sandbox::SandboxError> {
        match self {
            TracerError::Io(error) => error.get_ref()?.downcast_ref(),
            _ => None,
        }
    }
}

impl From<sandbox::SandboxError> for TracerError {
    fn from(error: sandbox::SandboxError) -> Self {
        TracerError::Io(io::Error::new(io::ErrorKind::PermissionDenied, error))
    }
}

fn describe_io_error(error: &io::Error) -> String {
    match error
        .get_ref()
        .and_then(|inner| inner.downcast_ref::<sandbox::SandboxError>())
    {
        Some(sandbox_error) => sandbox_error.to_string(),
        None => format!("tracer I/O error: {error}"),
    }
}

/// Record `entry_call` (such as `f([1, 2], k=3)`) evaluated in the module
/// made from the file at `path`.
pub fn trace_file(
    path: &Path,
    entry_call: &str,
    config: &TracerConfig,
) -> Result<Trace, TracerError> {
    let source = String::from_utf8_lossy(&std::fs::read(path)?).into_owned();
    let outcome = run_tracer(path, entry_call, config)?;
    Ok(Trace {
        source,
        entry_call: entry_call.to_string(),
        events: outcome.events,
        exit: outcome.exit,
        stdout: outcome.stdout,
    })
}

/// Record `entry_call` on `source`, written to a private temporary file
/// (removed afterwards). Error messages name the file `<source>`.
pub fn trace_source(
    source: &str,
    entry_call: &str,
    config: &TracerConfig,
) -> Result<Trace, TracerError> {
    let directory = TempDirectory::create("ndb-trace")?;
    let path = directory.path.join(format!("{}.py", directory.module_stem));
    std::fs::write(&path, source)?;
    let outcome = run_tracer(&path, entry_call, config).map_err(|error| hide_path(error, &path))?;
    Ok(Trace {
        source: source.to_string(),
        entry_call: entry_call.to_string(),
        events: outcome.events,
        exit: outcome.exit,
        stdout: outcome.stdout,
    })
}

/// Write the tracing script into `dir` as `ndb_tracer.py` and return its
/// path, for tools that import its functions (`bounded_repr`, `load_target`,
/// `parse_entry_call`, `is_target_frame`) to agree with the tracer.
pub fn write_tracer_script(dir: &Path) -> io::Result<PathBuf> {
    let path = dir.join(TRACER_SCRIPT_FILE_NAME);
    std::fs::write(&path, TRACER_SCRIPT)?;
    Ok(path)
}

/// What a finished run produced.
struct RunOutcome {
    events: Vec<Event>,
    exit: Exit,
    stdout: String,
}

/// The entry call's first state, bound without running the file (the
/// script's `--bind` mode; `crate::entry` is the public face).
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct BoundCall {
    pub(crate) function: String,
    pub(crate) line: u32,
    pub(crate) locals: Locals,
}

/// What the protocol reader thread passes on.
enum ReaderMessage {
    Line(ProtocolLine),
    Malformed(MalformedLine),
    LimitReached,
}

/// How the child process ended.
enum Ending {
    Exited(std::process::ExitStatus),
    TimedOut,
    ProtocolLimit,
    Malformed,
}

/// Everything read from the protocol channel.
#[derive(Default)]
struct Collected {
    ready: bool,
    started: bool,
    events: Vec<Event>,
    exit: Option<(Exit, String)>,
    setup_error: Option<(String, String)>,
    binding: Option<BoundCall>,
    malformed: Option<MalformedLine>,
    limit_reached: bool,
}

impl Collected {
    fn take(&mut self, message: ReaderMessage) {
        // Nothing after the exit line belongs to the run.
        if self.exit.is_some() || self.setup_error.is_some() || self.binding.is_some() {
            return;
        }
        match message {
            ReaderMessage::Line(ProtocolLine::Ready) => self.ready = true,
            ReaderMessage::Line(ProtocolLine::Start) => self.started = true,
            ReaderMessage::Line(ProtocolLine::Event(event)) => self.events.push(event),
            ReaderMessage::Line(ProtocolLine::Exit { exit, stdout }) => {
                self.exit = Some((exit, stdout))
            }
            ReaderMessage::Line(ProtocolLine::Error { kind, message }) => {
                self.setup_error = Some((kind, message))
            }
            ReaderMessage::Line(ProtocolLine::Binding(binding)) => self.binding = Some(binding),
            ReaderMessage::Malformed(text) => {
                self.malformed.get_or_insert(text);
            }
            ReaderMessage::LimitReached => self.limit_reached = true,
        }
    }
}

/// The child process, killed and reaped on every path out.
struct ChildGuard {
    child: Child,
    reaped: bool,
}

impl ChildGuard {
    fn kill(&mut self) {
        if !self.reaped {
            let _ = self.child.kill();
            let _ = self.child.wait();
            self.reaped = true;
        }
    }

    fn try_wait(&mut self) -> io::Result<Option<std::process::ExitStatus>> {
        let status = self.child.try_wait()?;
        if status.is_some() {
            self.reaped = true;
        }
        Ok(status)
    }
}

impl Drop for ChildGuard {
    fn drop(&mut self) {
        self.kill();
        // The child leads its own process group: whatever it forked (and
        // left running, holding our pipes) goes with it.
        #[cfg(unix)]
        if let Ok(group) = libc::pid_t::try_from(self.child.id()) {
            // SAFETY: killpg only sends a signal; the group is the child's own.
            unsafe {
                libc::killpg(group, libc::SIGKILL);
            }
        }
    }
}

fn run_tracer(
    path: &Path,
    entry_call: &str,
    config: &TracerConfig,
) -> Result<RunOutcome, TracerError> {
    let (collected, ending, stderr) = run_script(path, entry_call, config, Mode::Trace)?;
    conclude(collected, ending, &stderr, entry_call, config)
}

/// What the script is asked to do.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Mode {
    /// Run the entry call under the tracer.
    Trace,
    /// Only bind the entry call's arguments (`--bind`): nothing of the file runs.
    Bind,
}

/// Bind `entry_call` on `source` (written to a private temporary file)
/// without running it: the state of the tracer's first `call` event. Bounded
/// by the configuration's time and memory limits like a traced run.
pub(crate) fn bind_source(
    source: &str,
    entry_call: &str,
    config: &TracerConfig,
) -> Result<BoundCall, TracerError> {
    let directory = TempDirectory::create("ndb-trace")?;
    let path = directory.path.join(format!("{}.py", directory.module_stem));
    std::fs::write(&path, source)?;
    let (collected, ending, stderr) = run_script(&path, entry_call, config, Mode::Bind)
        .map_err(|error| hide_path(error, &path))?;
    conclude_binding(collected, ending, &stderr, config).map_err(|error| hide_path(error, &path))
}

/// Run the script on `path` in `mode` and collect what it wrote, how it
/// ended and the end of its stderr.
fn run_script(
    path: &Path,
    entry_call: &str,
    config: &TracerConfig,
    mode: Mode,
) -> Result<(Collected, Ending, String), TracerError> {
    let report = SandboxReport::current();
    if config.sandbox == SandboxPolicy::Required && !report.is_complete() {
        return Err(sandbox::SandboxError::Refused(report.summary()).into());
    }
    // The child runs in a fresh directory: paths given relative to ours
    // are made absolute first.
    let path = std::path::absolute(path)?;
    let python = if config.python.components().count() > 1 {
        std::path::absolute(&config.python)?
    } else {
        config.python.clone()
    };
    let mut command = Command::new(&python);
    command.arg("-B").arg("-c").arg(TRACER_SCRIPT);
    if mode == Mode::Bind {
        command.arg("--bind");
    }
    command
        .arg(prefixed("--file=", path.as_os_str()))
        .arg(format!("--call={entry_call}"))
        .arg(format!("--max-events={}", config.max_events))
        .arg(format!("--time-limit={}", config.time_limit.as_secs_f64()))
        .arg(format!("--memory-limit={}", config.memory_limit_bytes))
        .arg(format!("--max-stdout={}", config.max_stdout_bytes))
        .arg(format!("--max-repr={}", config.max_repr_chars))
        .arg(format!("--max-items={}", config.max_items))
        .env("PYTHONHASHSEED", "0")
        .env("PYTHONIOENCODING", "utf-8")
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    #[cfg(unix)]
    std::os::unix::process::CommandExt::process_group(&mut command, 0);
    // Declared before the child, so it is removed after the child's group
    // is killed.
    let work_dir = TempDirectory::create("ndb-run")?;
    sandbox::confine(&mut command, &work_dir.path, &report)?;
    let started = Instant::now();
    let child = command.spawn().map_err(|error| {
        #[cfg(unix)]
        if error.raw_os_error() == Some(sandbox::CONFINE_FAILED_ERRNO) {
            return TracerError::from(sandbox::SandboxError::NotApplied(report.summary()));
        }
        TracerError::PythonNotFound {
            python: config.python.display().to_string(),
            reason: error.to_string(),
        }
    })?;
    let mut child = ChildGuard {
        child,
        reaped: false,
    };
    let stdout = child.child.stdout.take().expect("stdout is piped");
    let stderr = child.child.stderr.take().expect("stderr is piped");

    let (sender, receiver) = mpsc::channel();
    let max_protocol_bytes = config.max_protocol_bytes;
    thread::Builder::new()
        .name("ndb-tracer-protocol".into())
        .spawn(move || read_protocol(stdout, max_protocol_bytes, sender))?;
    let stderr_tail = Arc::new(Mutex::new(Vec::new()));
    let stderr_sink = Arc::clone(&stderr_tail);
    thread::Builder::new()
        .name("ndb-tracer-stderr".into())
        .spawn(move || drain_stderr(stderr, &stderr_sink))?;

    let deadline = started.checked_add(config.time_limit.saturating_add(KILL_GRACE));
    let mut collected = Collected::default();
    let ending = watch(&mut child, &receiver, &mut collected, deadline)?;
    // Keep what was already written before the child ended or was killed.
    if !matches!(ending, Ending::ProtocolLimit | Ending::Malformed) {
        let drain_until = Instant::now() + DRAIN_TIMEOUT;
        while let Ok(message) =
            receiver.recv_timeout(drain_until.saturating_duration_since(Instant::now()))
        {
            collected.take(message);
        }
    }
    let stderr = {
        let kept = stderr_tail
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner());
        String::from_utf8_lossy(&kept).into_owned()
    };
    Ok((collected, ending, stderr))
}

/// Wait for the child to end, collecting protocol lines, and kill it at the
/// deadline or when its output is out of bounds.
fn watch(
    child: &mut ChildGuard,
    receiver: &Receiver<ReaderMessage>,
    collected: &mut Collected,
    deadline: Option<Instant>,
) -> Result<Ending, TracerError> {
    let mut reader_done = false;
    loop {
        if reader_done {
            thread::sleep(POLL_INTERVAL);
        } else {
            match receiver.recv_timeout(POLL_INTERVAL) {
                Ok(message) => collected.take(message),
                Err(RecvTimeoutError::Timeout) => {}
                Err(RecvTimeoutError::Disconnected) => reader_done = true,
            }
        }
        let exited = child.try_wait()?;
        if exited.is_some() {
            // The reader stops at the output limit and closes the pipe, and
            // the child may die of that before its last messages are taken
            // here: what is queued decides how the run ended.
            while let Ok(message) = receiver.try_recv() {
                collected.take(message);
            }
        }
        if collected.limit_reached {
            child.kill();
            return Ok(Ending::ProtocolLimit);
        }
        if collected.malformed.is_some() {
            child.kill();
            return Ok(Ending::Malformed);
        }
        if let Some(status) = exited {
            return Ok(Ending::Exited(status));
        }
        if deadline.is_some_and(|deadline| Instant::now() >= deadline) {
            child.kill();
            return Ok(Ending::TimedOut);
        }
    }
}

/// Turn what was read and how the child ended into a run or an error.
fn conclude(
    collected: Collected,
    ending: Ending,
    stderr: &str,
    entry_call: &str,
    config: &TracerConfig,
) -> Result<RunOutcome, TracerError> {
    if let Some(line) = collected.malformed {
        return Err(TracerError::Protocol(line.to_string()));
    }
    if let Some((kind, message)) = collected.setup_error {
        return Err(setup_error(kind, message));
    }
    let time_limit = format_seconds(config.time_limit);
    if !collected.ready {
        return Err(not_ready(&ending, stderr, config));
    }
    if !collected.started {
        return Err(match &ending {
            Ending::TimedOut => TracerError::Load(format!(
                "running the file's top level and evaluating the entry call did not finish \
                 within the time limit of {time_limit}"
            )),
            Ending::Exited(status) => TracerError::Load(format!(
                "the process {} while running the file's top level or evaluating the entry call{}",
                describe_status(status),
                stderr_excerpt(stderr)
            )),
            _ => TracerError::Protocol("the tracer ended before tracing started".to_string()),
        });
    }
    if collected.events.is_empty() {
        return Err(TracerError::NoEvents {
            entry_call: entry_call.to_string(),
        });
    }
    let (exit, stdout) = match collected.exit {
        Some(exit) => exit,
        None => (made_up_exit(&ending, stderr, config), String::new()),
    };
    Ok(RunOutcome {
        events: collected.events,
        exit,
        stdout,
    })
}

/// The error an `error` line of the script stands for.
fn setup_error(kind: String, message: String) -> TracerError {
    match kind.as_str() {
        "syntax" => TracerError::Syntax(message),
        "entry" => TracerError::EntryCall(message),
        "load" => TracerError::Load(message),
        _ => TracerError::Protocol(format!("the tracer failed ({kind}): {message}")),
    }
}

/// The error of a script that did not even write its `ready` line.
fn not_ready(ending: &Ending, stderr: &str, config: &TracerConfig) -> TracerError {
    let how = match ending {
        Ending::TimedOut => format!("did not start within {}", format_seconds(config.time_limit)),
        Ending::Exited(status) => format!("wrote nothing and {}", describe_status(status)),
        _ => "wrote nothing".to_string(),
    };
    TracerError::Protocol(format!(
        "the tracer {how}; it needs Python 3.8 or newer{}",
        stderr_excerpt(stderr)
    ))
}

/// Turn what a `--bind` run wrote into the binding or an error.
fn conclude_binding(
    collected: Collected,
    ending: Ending,
    stderr: &str,
    config: &TracerConfig,
) -> Result<BoundCall, TracerError> {
    if let Some(line) = collected.malformed {
        return Err(TracerError::Protocol(line.to_string()));
    }
    if let Some((kind, message)) = collected.setup_error {
        return Err(setup_error(kind, message));
    }
    if let Some(binding) = collected.binding {
        return Ok(binding);
    }
    if !collected.ready {
        return Err(not_ready(&ending, stderr, config));
    }
    let how = match &ending {
        Ending::TimedOut => format!(
            "did not finish within the time limit of {}",
            format_seconds(config.time_limit)
        ),
        Ending::Exited(status) => format!("{} without a result", describe_status(status)),
        Ending::ProtocolLimit => format!(
            "wrote more than the output limit of {} bytes",
            config.max_protocol_bytes
        ),
        Ending::Malformed => "wrote a malformed line".to_string(),
    };
    Err(TracerError::Protocol(format!(
        "binding the entry call {how}{}",
        stderr_excerpt(stderr)
    )))
}

/// The exit of a run whose child ended without writing one.
fn made_up_exit(ending: &Ending, stderr: &str, config: &TracerConfig) -> Exit {
    match ending {
        Ending::Exited(status) => Exit {
            status: ExitStatus::Error,
            value: Some(format!(
                "<process {} before the call returned>",
                describe_status(status)
            )),
            reason: Some(format!(
                "the process {} before the entry call returned (os._exit or a crash){}",
                describe_status(status),
                stderr_excerpt(stderr)
            )),
        },
        Ending::ProtocolLimit => Exit {
            status: ExitStatus::Never,
            value: None,
            reason: Some(format!(
                "tracer output limit of {} bytes reached",
                config.max_protocol_bytes
            )),
        },
        Ending::TimedOut | Ending::Malformed => Exit {
            status: ExitStatus::Never,
            value: None,
            reason: Some(format!(
                "time limit of {} reached",
                format_seconds(config.time_limit)
            )),
        },
    }
}

/// `exited with code 3`, `was killed by signal 9 (SIGKILL)`.
fn describe_status(status: &std::process::ExitStatus) -> String {
    if let Some(code) = status.code() {
        return format!("exited with code {code}");
    }
    #[cfg(unix)]
    {
        use std::os::unix::process::ExitStatusExt;
        if let Some(signal) = status.signal() {
            return match signal_name(signal) {
                Some(name) => format!("was killed by signal {signal} ({name})"),
                None => format!("was killed by signal {signal}"),
            };
        }
    }
    "ended".to_string()
}

#[cfg(unix)]
fn signal_name(signal: i32) -> Option<&'static str> {
    Some(match signal {
        1 => "SIGHUP",
        2 => "SIGINT",
        3 => "SIGQUIT",
        4 => "SIGILL",
        6 => "SIGABRT",
        7 => "SIGBUS",
        8 => "SIGFPE",
        9 => "SIGKILL",
        11 => "SIGSEGV",
        13 => "SIGPIPE",
        15 => "SIGTERM",
        24 => "SIGXCPU",
        25 => "SIGXFSZ",
        _ => return None,
    })
}

/// `2s`, `0.5s`: the way the script writes seconds too (`%g`).
fn format_seconds(duration: Duration) -> String {
    format!("{}s", duration.as_secs_f64())
}

/// `; stderr: ...` with the end of stderr, or nothing when it is empty.
fn stderr_excerpt(stderr: &str) -> String {
    let trimmed = stderr.trim();
    if trimmed.is_empty() {
        return String::new();
    }
    let mut start = trimmed.len().saturating_sub(STDERR_EXCERPT_BYTES);
    while !trimmed.is_char_boundary(start) {
        start += 1;
    }
    let cut = if start > 0 { "..." } else { "" };
    format!("; stderr: {cut}{}", &trimmed[start..])
}

fn prefixed(prefix: &str, value: &std::ffi::OsStr) -> OsString {
    let mut text = OsString::from(prefix);
    text.push(value);
    text
}

/// Read the protocol line by line until the child closes it or it outgrows
/// `max_bytes`. A last line without its newline was cut by the child's end
/// and is dropped.
fn read_protocol(stdout: ChildStdout, max_bytes: usize, sender: Sender<ReaderMessage>) {
    let mut reader = BufReader::new(stdout);
    let mut total = 0usize;
    let mut line = Vec::new();
    loop {
        line.clear();
        let allowed = max_bytes.saturating_sub(total) as u64 + 1;
        let read = match (&mut reader).take(allowed).read_until(b'\n', &mut line) {
            Ok(0) | Err(_) => return,
            Ok(read) => read,
        };
        total += read;
        if total > max_bytes {
            let _ = sender.send(ReaderMessage::LimitReached);
            return;
        }
        if line.last() != Some(&b'\n') {
            return;
        }
        let message = match parse_line(&line) {
            Ok(parsed) => ReaderMessage::Line(parsed),
            Err(problem) => ReaderMessage::Malformed(problem),
        };
        if sender.send(message).is_err() {
            return;
        }
    }
}

/// Keep the last [`MAX_STDERR_BYTES`] of the child's stderr.
fn drain_stderr(mut stderr: ChildStderr, kept: &Mutex<Vec<u8>>) {
    let mut chunk = [0u8; 8192];
    loop {
        let read = match stderr.read(&mut chunk) {
            Ok(0) | Err(_) => return,
            Ok(read) => read,
        };
        let mut kept = kept.lock().unwrap_or_else(|poisoned| poisoned.into_inner());
        kept.extend_from_slice(&chunk[..read]);
        if kept.len() > MAX_STDERR_BYTES {
            let excess = kept.len() - MAX_STDERR_BYTES;
            kept.drain(..excess);
        }
    }
}

/// Replace the temporary file's path in an error message by `<source>`.
fn hide_path(error: TracerError, path: &Path) -> TracerError {
    let shown = path.display().to_string();
    let hide = |message: String| message.replace(&shown, "<source>");
    match error {
        TracerError::Syntax(message) => TracerError::Syntax(hide(message)),
        TracerError::EntryCall(message) => TracerError::EntryCall(hide(message)),
        TracerError::Load(message) => TracerError::Load(hide(message)),
        TracerError::Protocol(message) => TracerError::Protocol(hide(message)),
        other => other,
    }
}

/// A fresh private directory under the system's temporary directory,
/// removed with everything in it when dropped.
struct TempDirectory {
    path: PathBuf,
    /// The module's name, the same for every run (`program`): it shows in
    /// class reprs, which must not depend on the run (training data, the
    /// answer cache, comparisons).
    module_stem: String,
}

impl TempDirectory {
    fn create(prefix: &str) -> io::Result<TempDirectory> {
        static COUNTER: AtomicU64 = AtomicU64::new(0);
        let pid = std::process::id();
        loop {
            let serial = COUNTER.fetch_add(1, Ordering::Relaxed);
            let nanos = std::time::SystemTime::now()
                .duration_since(std::time::UNIX_EPOCH)
                .map(|elapsed| elapsed.subsec_nanos())
                .unwrap_or(0);
            let path = std::env::temp_dir().join(format!("{prefix}-{pid}-{serial}-{nanos}"));
            let mut builder = std::fs::DirBuilder::new();
            #[cfg(unix)]
            {
                use std::os::unix::fs::DirBuilderExt;
                builder.mode(0o700);
            }
            match builder.create(&path) {
                Ok(()) => {
                    return Ok(TempDirectory {
                        path,
                        module_stem: "program".to_string(),
                    })
                }
                Err(error) if error.kind() == io::ErrorKind::AlreadyExists => continue,
                Err(error) => return Err(error),
            }
        }
    }
}

impl Drop for TempDirectory {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.path);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_child_that_died_after_the_output_limit_ended_at_the_limit() {
        // The race CI met: the reader hit the limit and closed the pipe, the
        // child died of it, and the watcher saw the exit while the limit
        // message still waited behind others in the channel.
        let mut child = ChildGuard {
            child: Command::new("true").spawn().expect("`true` runs"),
            reaped: false,
        };
        child.child.wait().expect("`true` ends");
        let (sender, receiver) = mpsc::channel();
        for _ in 0..100 {
            sender
                .send(ReaderMessage::Line(ProtocolLine::Ready))
                .unwrap();
        }
        sender.send(ReaderMessage::LimitReached).unwrap();
        drop(sender);
        let mut collected = Collected::default();
        let ending = watch(&mut child, &receiver, &mut collected, None).unwrap();
        assert!(matches!(ending, Ending::ProtocolLimit));
    }

    #[test]
    fn script_fits_in_one_command_line_argument() {
        // Linux refuses a single argument longer than 128 KiB (MAX_ARG_STRLEN).
        assert!(
            TRACER_SCRIPT.len() < 100_000,
            "{} bytes",
            TRACER_SCRIPT.len()
        );
    }

    #[test]
    fn seconds_read_like_the_script_writes_them() {
        assert_eq!(format_seconds(Duration::from_secs(2)), "2s");
        assert_eq!(format_seconds(Duration::from_millis(500)), "0.5s");
    }
}

//! The sandbox of user code, tried with hostile programs run by the real
//! tracer and the real `python3`: each tries to write outside its working
//! directory, delete a file of the user's, open or accept a TCP connection,
//! or signal a process outside the sandbox, and reports what happened as
//! its return value. These tests need a kernel with Landlock ABI 6 (Linux
//! 6.12) or newer, as CI has; on an older kernel they say so and fail
//! rather than pass without checking.

#![cfg(target_os = "linux")]

use std::net::TcpListener;
use std::path::PathBuf;
use std::time::Duration;

use ndb_grammar::{ExitStatus, Trace};
use ndb_inference::tracer::{trace_source, SandboxReport, TracerConfig};

/// A directory of the user's (outside any run's working directory),
/// removed afterwards.
struct UserDirectory(PathBuf);

impl UserDirectory {
    fn new(name: &str) -> UserDirectory {
        let path =
            std::env::temp_dir().join(format!("ndb-sandbox-test-{name}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&path);
        std::fs::create_dir_all(&path).expect("creating the user's directory");
        UserDirectory(path)
    }
}

impl Drop for UserDirectory {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

fn run(source: &str, call: &str) -> Trace {
    assert!(
        SandboxReport::current().is_complete(),
        "this kernel cannot enforce every sandbox rule: {}",
        SandboxReport::current()
    );
    trace_source(source, call, &TracerConfig::default())
        .unwrap_or_else(|error| panic!("tracing `{call}`: {error}"))
}

/// The entry call's return value (the programs catch what they meet).
fn returned(trace: &Trace) -> String {
    assert_eq!(
        trace.exit.status,
        ExitStatus::Normal,
        "the program did not return: {:?}",
        trace.exit
    );
    trace.exit.value.clone().unwrap_or_default()
}

fn literal(path: &std::path::Path) -> String {
    format!("{:?}", path.display().to_string())
}

const TRY: &str = r#"
import os, socket, subprocess, tempfile

def attempt(action):
    try:
        action()
        return 'done'
    except OSError as error:
        return type(error).__name__
"#;

#[test]
fn a_program_cannot_write_outside_its_working_directory() {
    let user = UserDirectory::new("write");
    let target = user.0.join("planted.txt");
    let source =
        format!("{TRY}\ndef f(path):\n    return attempt(lambda: open(path, 'w').write('x'))\n");
    let trace = run(&source, &format!("f({})", literal(&target)));
    assert_eq!(returned(&trace), "'PermissionError'");
    assert!(!target.exists(), "the program wrote {}", target.display());

    // Nor through a child process it starts.
    let source = format!(
        "{TRY}\ndef f(path):\n    return subprocess.run(['sh', '-c', 'echo x > ' + path]).returncode\n"
    );
    let trace = run(&source, &format!("f({})", literal(&target)));
    assert_ne!(returned(&trace), "0");
    assert!(
        !target.exists(),
        "a child process wrote {}",
        target.display()
    );
}

#[test]
fn a_program_cannot_delete_rename_or_truncate_a_file_of_the_user() {
    let user = UserDirectory::new("delete");
    let kept = user.0.join("notes.txt");
    std::fs::write(&kept, "precious").expect("writing the user's file");
    let source = format!(
        "{TRY}\nimport shutil\ndef f(path):\n    return [attempt(lambda: os.remove(path)), attempt(lambda: os.rename(path, path + '.moved')), attempt(lambda: os.truncate(path, 0)), attempt(lambda: shutil.rmtree(os.path.dirname(path)))]\n"
    );
    let trace = run(&source, &format!("f({})", literal(&kept)));
    assert_eq!(
        returned(&trace),
        "['PermissionError', 'PermissionError', 'PermissionError', 'PermissionError']"
    );
    assert_eq!(std::fs::read_to_string(&kept).unwrap(), "precious");
}

#[test]
fn a_program_writes_freely_in_its_own_fresh_working_directory() {
    let source = format!(
        "{TRY}\ndef f():\n    before = sorted(os.listdir('.'))\n    open('scratch.txt', 'w').write('x')\n    with tempfile.NamedTemporaryFile() as handle:\n        handle.write(b'y')\n    os.remove('scratch.txt')\n    return before, os.getcwd() == tempfile.gettempdir()\n"
    );
    let trace = run(&source, "f()");
    assert_eq!(returned(&trace), "([], True)");
}

#[test]
fn a_program_cannot_open_or_accept_a_tcp_connection() {
    let listener = TcpListener::bind("127.0.0.1:0").expect("binding a local port");
    listener.set_nonblocking(true).unwrap();
    let port = listener.local_addr().unwrap().port();
    let source = format!(
        "{TRY}\ndef f(port):\n    return [attempt(lambda: socket.create_connection(('127.0.0.1', port), timeout=2)), attempt(lambda: socket.socket().bind(('127.0.0.1', 0)))]\n"
    );
    let trace = run(&source, &format!("f({port})"));
    assert_eq!(returned(&trace), "['PermissionError', 'PermissionError']");
    std::thread::sleep(Duration::from_millis(50));
    assert!(
        listener.accept().is_err(),
        "the program reached the listener"
    );
}

#[test]
fn a_program_cannot_signal_a_process_outside_the_sandbox_or_gain_privileges() {
    let source = format!(
        "{TRY}\ndef f(pid):\n    status = open('/proc/self/status').read()\n    no_new_privs = [line.split()[1] for line in status.splitlines() if line.startswith('NoNewPrivs')]\n    return attempt(lambda: os.kill(pid, 0)), no_new_privs\n"
    );
    let trace = run(&source, &format!("f({})", std::process::id()));
    assert_eq!(returned(&trace), "('PermissionError', ['1'])");
}

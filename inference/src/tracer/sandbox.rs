//! The sandbox every run of user code is put in before it executes: a fresh
//! temporary working directory, an environment without secrets-looking
//! variables, `PR_SET_NO_NEW_PRIVS`, and on Linux a Landlock ruleset (through
//! the `landlock` crate) that allows reading everywhere but writing only
//! inside that directory, denies every TCP bind and connect, and scopes
//! abstract UNIX sockets and signals to the sandbox.
//!
//! Which rules a kernel can enforce depends on its Landlock ABI version;
//! [`SandboxReport`] says which ones this run has and which the kernel
//! lacks, and every front end shows it. The report is computed before the
//! child starts, from the same ABI the ruleset is built for, and the ruleset
//! is built with the crate's hard-requirement level: a rule the report
//! claims is either enforced or the run does not start.
//!
//! `NDB_SANDBOX_ABI=N` makes ndb act as if the kernel had Landlock ABI `N`
//! at most (0: none), so the partial and refused paths can be tried on any
//! kernel; the rules above `N` are then really not applied.

use std::fmt;
use std::path::Path;
use std::process::Command;
use std::sync::OnceLock;

/// Caps the Landlock ABI ndb uses (for trying older kernels' behaviour).
pub const PRETEND_ABI_VARIABLE: &str = "NDB_SANDBOX_ABI";

/// The newest Landlock ABI whose rules ndb applies (and reports).
const NEWEST_ABI_USED: u32 = 6;

/// Whether a run may go ahead when the kernel lacks a rule.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum SandboxPolicy {
    /// Run with every rule the kernel can enforce and say which it lacks.
    #[default]
    BestEffort,
    /// Refuse to run unless every rule is enforced (`--require-sandbox`).
    Required,
}

/// One rule of the sandbox that needs kernel support.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum SandboxRule {
    /// No file is written, created, removed or renamed outside the working
    /// directory (Landlock ABI 1, Linux 5.13; renames across it need ABI 2).
    FileWrites,
    /// No file outside the working directory is truncated (ABI 3, Linux 6.2).
    FileTruncation,
    /// No TCP connection is opened and no TCP port bound (ABI 4, Linux 6.7).
    Network,
    /// No abstract UNIX socket outside the sandbox is reached and no signal
    /// sent to a process outside it (ABI 6, Linux 6.12).
    Ipc,
}

impl SandboxRule {
    pub const ALL: [SandboxRule; 4] = [
        SandboxRule::FileWrites,
        SandboxRule::FileTruncation,
        SandboxRule::Network,
        SandboxRule::Ipc,
    ];

    /// The short name used in JSON and messages.
    pub fn name(self) -> &'static str {
        match self {
            SandboxRule::FileWrites => "file-writes",
            SandboxRule::FileTruncation => "file-truncation",
            SandboxRule::Network => "network",
            SandboxRule::Ipc => "ipc",
        }
    }

    /// The first Landlock ABI version that enforces the rule.
    pub fn landlock_abi(self) -> u32 {
        match self {
            SandboxRule::FileWrites => 1,
            SandboxRule::FileTruncation => 3,
            SandboxRule::Network => 4,
            SandboxRule::Ipc => 6,
        }
    }

    /// The first Linux version with that ABI.
    fn linux_version(self) -> &'static str {
        match self {
            SandboxRule::FileWrites => "5.13",
            SandboxRule::FileTruncation => "6.2",
            SandboxRule::Network => "6.7",
            SandboxRule::Ipc => "6.12",
        }
    }
}

/// Which sandbox rules a run has: every rule, or the ones the kernel lacks.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SandboxReport {
    /// The Landlock ABI the ruleset is built for (0: no Landlock).
    pub landlock_abi: u32,
    /// The rules the kernel (or the platform) cannot enforce.
    pub missing: Vec<SandboxRule>,
    /// Why Landlock is missing altogether, when it is.
    pub unavailable: Option<String>,
}

impl SandboxReport {
    /// The rules a kernel with Landlock ABI `abi` enforces (a pure mapping).
    pub fn for_abi(abi: u32) -> SandboxReport {
        let abi = abi.min(NEWEST_ABI_USED);
        SandboxReport {
            landlock_abi: abi,
            missing: SandboxRule::ALL
                .into_iter()
                .filter(|rule| rule.landlock_abi() > abi)
                .collect(),
            unavailable: (abi == 0).then(|| "the kernel has no Landlock".to_string()),
        }
    }

    /// The sandbox of this machine's runs: the kernel's Landlock ABI, capped
    /// by `NDB_SANDBOX_ABI` when set. Probed once per process.
    pub fn current() -> SandboxReport {
        static KERNEL: OnceLock<Result<u32, NoLandlock>> = OnceLock::new();
        let kernel = KERNEL.get_or_init(kernel_abi);
        let pretended = std::env::var(PRETEND_ABI_VARIABLE)
            .ok()
            .and_then(|text| text.trim().parse::<u32>().ok());
        match kernel {
            Ok(abi) => {
                let mut report = SandboxReport::for_abi(pretended.map_or(*abi, |p| p.min(*abi)));
                if pretended.is_some_and(|p| p < *abi) {
                    if let Some(reason) = &mut report.unavailable {
                        reason.push_str(&format!(
                            " ({PRETEND_ABI_VARIABLE}={})",
                            report.landlock_abi
                        ));
                    }
                }
                report
            }
            Err(reason) => SandboxReport {
                unavailable: Some(reason.to_string()),
                ..SandboxReport::for_abi(0)
            },
        }
    }

    /// Every rule is enforced.
    pub fn is_complete(&self) -> bool {
        self.missing.is_empty()
    }

    /// `sandboxed`, `partly sandboxed: the kernel lacks network (...)`, or
    /// `not sandboxed: ...`: what the front ends show.
    pub fn summary(&self) -> String {
        if self.is_complete() {
            return "sandboxed".to_string();
        }
        let lacking = self
            .missing
            .iter()
            .map(|rule| {
                format!(
                    "{} (Landlock ABI {}, Linux {})",
                    rule.name(),
                    rule.landlock_abi(),
                    rule.linux_version()
                )
            })
            .collect::<Vec<_>>()
            .join(", ");
        match &self.unavailable {
            Some(reason) => format!(
                "not sandboxed: {reason}; only a fresh working directory, a scrubbed environment and no new privileges apply; missing rules: {lacking}"
            ),
            None => format!(
                "partly sandboxed: the kernel (Landlock ABI {}) lacks {lacking}",
                self.landlock_abi
            ),
        }
    }
}

impl fmt::Display for SandboxReport {
    fn fmt(&self, formatter: &mut fmt::Formatter<'_>) -> fmt::Result {
        formatter.write_str(&self.summary())
    }
}

/// Why a run did not start because of its sandbox.
#[derive(Debug, thiserror::Error)]
pub enum SandboxError {
    /// The sandbox is required (`--require-sandbox`) and the kernel lacks a
    /// rule; the text is [`SandboxReport::summary`].
    #[error("refusing to run the code: it would be {0}, and the sandbox is required")]
    Refused(String),
    #[error("could not prepare the sandbox: {0}")]
    Prepare(String),
    /// The child could not restrict itself; nothing of the user's ran.
    #[error("the sandbox could not be applied in the child process (the kernel refused it; expected: {0}); nothing ran")]
    NotApplied(String),
}

/// Whether an environment variable's name looks like it holds a secret (or
/// a way to reach another process holding one): such variables are not
/// passed to user code.
pub fn is_secret_name(name: &str) -> bool {
    let upper = name.to_ascii_uppercase();
    const CONTAINS: [&str; 8] = [
        "TOKEN",
        "SECRET",
        "PASSWORD",
        "PASSWD",
        "CREDENTIAL",
        "APIKEY",
        "PRIVATE",
        "COOKIE",
    ];
    const WORDS: [&str; 5] = ["KEY", "AUTH", "SESSION", "PASS", "PAT"];
    const EXACT: [&str; 6] = [
        "SSH_AUTH_SOCK",
        "GPG_AGENT_INFO",
        "DBUS_SESSION_BUS_ADDRESS",
        "KUBECONFIG",
        "DOCKER_HOST",
        "NETRC",
    ];
    const PREFIXES: [&str; 4] = ["AWS_", "AZURE_", "GOOGLE_APPLICATION_", "VAULT_"];
    CONTAINS.iter().any(|part| upper.contains(part))
        || upper
            .split(|c: char| !c.is_ascii_alphanumeric())
            .any(|word| WORDS.contains(&word))
        || EXACT.contains(&upper.as_str())
        || PREFIXES.iter().any(|prefix| upper.starts_with(prefix))
}

/// Prepare `command` to run in the sandbox of `report`: `work_dir` (fresh,
/// empty, removed afterwards by the caller) is its working and temporary
/// directory and the only place it may write; secrets-looking variables are
/// removed; the Landlock ruleset and `PR_SET_NO_NEW_PRIVS` are applied in
/// the child between fork and exec.
pub(crate) fn confine(
    command: &mut Command,
    work_dir: &Path,
    report: &SandboxReport,
) -> Result<(), SandboxError> {
    command.current_dir(work_dir);
    for variable in ["TMPDIR", "TMP", "TEMP"] {
        command.env(variable, work_dir);
    }
    for (name, _) in std::env::vars_os() {
        if is_secret_name(&name.to_string_lossy()) {
            command.env_remove(&name);
        }
    }
    apply_restrictions(command, work_dir, report)
}

/// The errno a child reports when its restrictions could not be applied
/// (told apart from a missing interpreter by the spawn error).
#[cfg(unix)]
pub(crate) const CONFINE_FAILED_ERRNO: i32 = libc::ENOTRECOVERABLE;

#[cfg(target_os = "linux")]
fn apply_restrictions(
    command: &mut Command,
    work_dir: &Path,
    report: &SandboxReport,
) -> Result<(), SandboxError> {
    use landlock::{
        Access, AccessFs, AccessNet, CompatLevel, Compatible, PathBeneath, PathFd, Ruleset,
        RulesetAttr, RulesetCreatedAttr, Scope, ABI,
    };
    use std::os::unix::process::CommandExt;
    use std::sync::Mutex;

    let ruleset = if report.landlock_abi == 0 {
        None
    } else {
        let abi = ABI::from(report.landlock_abi as i32);
        let problem = |error: &dyn fmt::Display| SandboxError::Prepare(error.to_string());
        let mut ruleset = Ruleset::default()
            .set_compatibility(CompatLevel::HardRequirement)
            .handle_access(AccessFs::from_all(abi))
            .map_err(|e| problem(&e))?;
        if report.landlock_abi >= SandboxRule::Network.landlock_abi() {
            ruleset = ruleset
                .handle_access(AccessNet::from_all(abi))
                .map_err(|e| problem(&e))?;
        }
        if report.landlock_abi >= SandboxRule::Ipc.landlock_abi() {
            ruleset = ruleset
                .scope(Scope::from_all(abi))
                .map_err(|e| problem(&e))?;
        }
        let path = |path: &Path| PathFd::new(path).map_err(|e| problem(&e));
        let created = ruleset
            .create()
            .map_err(|e| problem(&e))?
            // Python reads its standard library, site-packages and the
            // user's source from anywhere; it executes what it finds.
            .add_rule(PathBeneath::new(
                path(Path::new("/"))?,
                AccessFs::from_read(abi),
            ))
            .map_err(|e| problem(&e))?
            .add_rule(PathBeneath::new(path(work_dir)?, AccessFs::from_all(abi)))
            .map_err(|e| problem(&e))?
            .add_rule(PathBeneath::new(
                path(Path::new("/dev/null"))?,
                AccessFs::from_file(abi),
            ))
            .map_err(|e| problem(&e))?;
        Some(created)
    };
    let ruleset = Mutex::new(ruleset);
    // SAFETY: the closure runs in the forked child before exec. It makes
    // two system calls (prctl, landlock_restrict_self) through a ruleset
    // prepared above, allocates nothing on success and touches no lock
    // another thread could hold (the mutex is only ever locked here).
    unsafe {
        command.pre_exec(move || {
            let taken = match ruleset.lock() {
                Ok(mut guard) => guard.take(),
                Err(_) => return Err(std::io::Error::from_raw_os_error(CONFINE_FAILED_ERRNO)),
            };
            match taken {
                Some(ruleset) => match ruleset.restrict_self() {
                    Ok(status) if status.no_new_privs => Ok(()),
                    _ => Err(std::io::Error::from_raw_os_error(CONFINE_FAILED_ERRNO)),
                },
                None => {
                    let (on, unused): (libc::c_ulong, libc::c_ulong) = (1, 0);
                    if libc::prctl(libc::PR_SET_NO_NEW_PRIVS, on, unused, unused, unused) == 0 {
                        Ok(())
                    } else {
                        Err(std::io::Error::from_raw_os_error(CONFINE_FAILED_ERRNO))
                    }
                }
            }
        });
    }
    Ok(())
}

#[cfg(not(target_os = "linux"))]
fn apply_restrictions(
    _command: &mut Command,
    _work_dir: &Path,
    _report: &SandboxReport,
) -> Result<(), SandboxError> {
    Ok(())
}

/// Why this machine's runs get no Landlock rules.
#[derive(Clone, Copy, Debug, PartialEq, Eq, thiserror::Error)]
enum NoLandlock {
    #[error("Landlock is built into the kernel but not enabled")]
    Disabled,
    #[error("the kernel has no Landlock (Linux 5.13 or newer with Landlock enabled)")]
    Absent,
    #[cfg(not(target_os = "linux"))]
    #[error("Landlock is Linux only; this platform gets no file or network rules")]
    NotLinux,
}

/// The running kernel's Landlock ABI version, or why there is none.
#[cfg(target_os = "linux")]
fn kernel_abi() -> Result<u32, NoLandlock> {
    const LANDLOCK_CREATE_RULESET_VERSION: libc::c_uint = 1;
    // SAFETY: with a null attribute and size 0 this call only returns the
    // ABI version (or an error); it creates nothing.
    let version = unsafe {
        libc::syscall(
            libc::SYS_landlock_create_ruleset,
            std::ptr::null::<libc::c_void>(),
            0usize,
            LANDLOCK_CREATE_RULESET_VERSION,
        )
    };
    if version > 0 {
        return Ok(u32::try_from(version).unwrap_or(u32::MAX));
    }
    Err(match std::io::Error::last_os_error().raw_os_error() {
        Some(libc::EOPNOTSUPP) => NoLandlock::Disabled,
        _ => NoLandlock::Absent,
    })
}

#[cfg(not(target_os = "linux"))]
fn kernel_abi() -> Result<u32, NoLandlock> {
    Err(NoLandlock::NotLinux)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_abi_enforces_the_rules_it_introduced() {
        assert_eq!(SandboxReport::for_abi(7).summary(), "sandboxed");
        assert!(SandboxReport::for_abi(6).is_complete());
        let v3 = SandboxReport::for_abi(3);
        assert_eq!(v3.missing, [SandboxRule::Network, SandboxRule::Ipc]);
        assert_eq!(
            v3.summary(),
            "partly sandboxed: the kernel (Landlock ABI 3) lacks network (Landlock ABI 4, Linux 6.7), ipc (Landlock ABI 6, Linux 6.12)"
        );
        assert_eq!(
            SandboxReport::for_abi(1).missing,
            [
                SandboxRule::FileTruncation,
                SandboxRule::Network,
                SandboxRule::Ipc
            ]
        );
        let none = SandboxReport::for_abi(0);
        assert_eq!(none.missing, SandboxRule::ALL);
        assert!(none
            .summary()
            .starts_with("not sandboxed: the kernel has no Landlock"));
    }

    #[test]
    fn secrets_looking_variables_are_recognised() {
        for secret in [
            "GITHUB_TOKEN",
            "OPENAI_API_KEY",
            "AWS_SECRET_ACCESS_KEY",
            "AWS_PROFILE",
            "DB_PASSWORD",
            "SSH_AUTH_SOCK",
            "HF_TOKEN",
            "npm_config__auth",
            "SESSION_ID",
            "MY_PRIVATE_THING",
        ] {
            assert!(is_secret_name(secret), "{secret}");
        }
        for plain in [
            "PATH",
            "HOME",
            "LANG",
            "PYTHONPATH",
            "VIRTUAL_ENV",
            "TERM",
            "KEYBOARD_LAYOUT_DIR",
            "PATHEXT",
        ] {
            assert!(!is_secret_name(plain), "{plain}");
        }
    }
}

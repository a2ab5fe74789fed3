//! The jail: one confinement for every process that runs a program under
//! a real interpreter or a third party's executable — the CPython oracle's
//! runs and every target's worker (`crate::targets`). The VM workers confine
//! themselves from the inside (`crate::worker::confine`, an allow-list: they
//! need few calls); an interpreter needs too many calls and files for that,
//! so it is confined from the outside, before its first instruction.
//!
//! A jailed command starts as this binary's hidden `__jail` subcommand
//! ([`launch`]), a fresh single-threaded process that may allocate and
//! open files freely, which applies the [`Policy`] to itself and then
//! `exec`s the program, so that the program inherits every layer:
//!
//! | layer | enforces |
//! |---|---|
//! | process group | the jailed process leads a group of its own; the parent kills the whole group ([`kill_group`]) on every outcome, and the jail may not leave it (`setsid`, `setpgid` refused) |
//! | descriptors | everything but stdin, stdout and stderr closed before `exec` |
//! | environment | empty but for [`Policy::env`] (the target's documented variables) |
//! | network namespace | a new, empty one where the kernel lets this process make it (root, or unprivileged user namespaces) |
//! | capabilities | all dropped (effective, permitted, inheritable, ambient, bounding set), `no_new_privs` |
//! | rlimits | address space, CPU time, file size, no core file |
//! | Landlock | read only beneath [`Policy::read`], the system's library directories and this process's own `/proc/<pid>` (not other processes': their environment, command line, maps); write only beneath [`Policy::write`], never a device node, FIFO or socket; execute only [`Policy::exec`] and the dynamic loader; no TCP; no signal or abstract socket out |
//! | seccomp | a deny-list ([`filter`]): no sockets, no device nodes, no `ptrace` or other processes' memory, no namespaces, mounts, modules, BPF, keys, `io_uring`, no leaving the group, no change of the death signal; where [`Policy::forks`] is false, no process at all (threads only) |
//!
//! Why a deny-list here and an allow-list in the VM workers: CPython and
//! TensorFlow make hundreds of distinct calls as they import (a list kept
//! in step with them would break on every upgrade), and what reaches the
//! host is covered by the refusals above with Landlock's paths. A layer the
//! kernel lacks is said once on stderr, like the workers' own.
//!
//! `STAGECHECK_NO_CONFINE` turns layers off as for the VM workers
//! (`landlock`, `seccomp`, `rlimits`; the group, the environment, the
//! descriptors and the capabilities always apply).

pub mod filter;
pub mod launch;
pub mod paths;
pub mod pipes;

use serde::{Deserialize, Serialize};
use std::ffi::OsString;
use std::path::{Path, PathBuf};
use std::process::Command;

/// The hidden subcommand that applies a policy and runs the program.
pub const SUBCOMMAND: &str = "__jail";

/// What a jailed process may do (sent to the launcher as JSON).
#[derive(Clone, Debug, Default, Serialize, Deserialize)]
pub struct Policy {
    /// Directories and files it may read, besides the system's libraries
    /// ([`paths::SYSTEM_READ`]) and its own `/proc/<pid>`.
    pub read: Vec<PathBuf>,
    /// The one directory it may write beneath (a private temporary one).
    pub write: Option<PathBuf>,
    /// What it may execute: the interpreter, or the directories of a third
    /// party's executable and its tools.
    pub exec: Vec<PathBuf>,
    /// Whether it may start processes (a third party's executable may be a
    /// shell script); an interpreter runs threads only.
    pub forks: bool,
    /// A fork server's: its children, which run the programs, are handed the
    /// threads-only filter to install ([`filter::THREADS_ONLY_VAR`]).
    pub threads_only_children: bool,
    /// The whole environment it gets.
    pub env: Vec<(String, String)>,
    /// `RLIMIT_AS`, in bytes.
    pub memory: Option<u64>,
    /// `RLIMIT_CPU`, in seconds.
    pub cpu: Option<u64>,
    /// `RLIMIT_FSIZE`, in bytes: the largest file it may write.
    pub file_size: u64,
    /// Layers turned off (`STAGECHECK_NO_CONFINE`), by name.
    pub off: Vec<String>,
}

/// The largest file a jailed process may write (AutoGraph's converted
/// modules are kilobytes).
pub const FILE_SIZE: u64 = 64 << 20;

/// The variables every jailed process gets: no secret of the host's, and
/// what an interpreter needs to behave the same on every machine.
pub fn base_env(tmp: Option<&Path>) -> Vec<(String, String)> {
    let mut env = vec![
        ("PATH".to_string(), "/usr/bin:/bin".to_string()),
        ("LANG".to_string(), "C.UTF-8".to_string()),
        ("PYTHONHASHSEED".to_string(), "0".to_string()),
        ("PYTHONIOENCODING".to_string(), "utf-8".to_string()),
        ("PYTHONDONTWRITEBYTECODE".to_string(), "1".to_string()),
    ];
    if let Some(tmp) = tmp {
        let tmp = tmp.display().to_string();
        // HOME too: Keras (imported by TensorFlow) reads and writes ~/.keras.
        env.push(("TMPDIR".to_string(), tmp.clone()));
        env.push(("HOME".to_string(), tmp));
    }
    env
}

impl Policy {
    /// `program args` under this policy: the launcher (`stagecheck
    /// __jail`) in a process group of its own, which confines itself and
    /// becomes the program. Its stdin, stdout and stderr are the caller's to set.
    pub fn command(&self, program: &Path, args: &[OsString]) -> Result<Command, String> {
        use std::os::unix::process::CommandExt;
        let exe = crate::worker::worker_exe()?;
        let mut policy = self.clone();
        policy.off = off_layers();
        let json = serde_json::to_string(&policy).map_err(|e| e.to_string())?;
        let mut command = Command::new(exe);
        command.arg(SUBCOMMAND).arg(json).arg(program).args(args);
        command.env_clear().process_group(0);
        dies_with_parent(&mut command);
        Ok(command)
    }
}

/// The layers `STAGECHECK_NO_CONFINE` turns off here.
fn off_layers() -> Vec<String> {
    let value = std::env::var(crate::worker::confine::OFF_VAR).unwrap_or_default();
    let (layers, _) = crate::worker::confine::layers_from(Some(&value));
    let mut off = Vec::new();
    for (name, on) in [("rlimits", layers.rlimits), ("landlock", layers.landlock), ("seccomp", layers.seccomp)] {
        if !on {
            off.push(name.to_string());
        }
    }
    off
}

/// The child gets SIGKILL when this process dies (a `kill -9` of the fuzz
/// loop leaves no interpreter behind; the launcher keeps it through `exec`).
fn dies_with_parent(command: &mut Command) {
    use std::os::unix::process::CommandExt;
    // SAFETY: prctl is async-signal-safe; nothing is allocated.
    unsafe {
        command.pre_exec(|| {
            libc::prctl(libc::PR_SET_PDEATHSIG, libc::SIGKILL);
            Ok(())
        });
    }
}

/// Kills the process group `leader` leads (the jailed process and all it
/// started): called on every outcome, so nothing a program forked outlives
/// its run or holds its pipes open.
pub fn kill_group(leader: u32) {
    // SAFETY: a signal to a process group; a group that is gone is ESRCH.
    unsafe {
        libc::kill(-(leader as i32), libc::SIGKILL);
    }
}

/// What the jail applies on this machine, in words: its layers, and those
/// the kernel denies it (the launcher says which, run once on `true`).
pub fn describe() -> String {
    let program = ["/usr/bin/true", "/bin/true"].into_iter().map(Path::new).find(|p| p.is_file());
    let lacking = match program.map(|p| Policy { exec: vec![p.to_path_buf()], ..Default::default() }.command(p, &[])) {
        Some(Ok(mut command)) => match command.output() {
            Ok(out) => String::from_utf8_lossy(&out.stderr)
                .lines()
                .filter_map(|l| l.strip_prefix("stagecheck jail: without "))
                .collect::<Vec<_>>()
                .join("; "),
            Err(e) => format!("(could not try it: {e})"),
        },
        Some(Err(why)) => format!("(could not try it: {why})"),
        None => "(could not try it: no true here)".to_string(),
    };
    let mut text = format!(
        "own process group killed whole; PID, mount and network namespaces; empty environment; no capabilities; \
         rlimits; Landlock (its paths, its own /proc, no TCP, no signal out); seccomp refusing {} calls \
         (interpreters: {} with threads only; target workers fork a child per program)",
        filter::refused_calls(true),
        filter::refused_calls(false)
    );
    if !lacking.is_empty() {
        text.push_str(&format!("; here without {lacking}"));
    }
    let off = off_layers();
    if !off.is_empty() {
        text.push_str(&format!("; {} off ({})", off.join(", "), crate::worker::confine::OFF_VAR));
    }
    text
}

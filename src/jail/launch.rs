//! The launcher (`stagecheck __jail POLICY PROGRAM ARGS...`): applies a
//! [`Policy`] to itself, layer by layer, then becomes the program. It runs
//! single-threaded, before anything of the program's, so every layer is
//! built without the limits of a `fork`ed child (no allocation between
//! `fork` and `exec`) and binds every thread the program will start.
//!
//! A layer that cannot be applied is named on stderr in one line starting
//! `stagecheck jail:` (the parent quotes a dead worker's last lines), and
//! the program still runs: as the VM workers do, the jail degrades on a
//! kernel without a layer rather than refusing to test.

use super::Policy;
use std::ffi::OsString;
use std::process::ExitCode;

/// Exit status when the program could not be started at all.
const CANNOT_START: u8 = 126;

/// The launcher's `main`: `args` after the subcommand.
pub fn main(args: Vec<OsString>) -> ExitCode {
    let mut args = args.into_iter();
    let policy: Option<Policy> = args.next().and_then(|p| serde_json::from_str(&p.to_string_lossy()).ok());
    let (Some(policy), Some(program)) = (policy, args.next()) else {
        eprintln!("stagecheck jail: usage: stagecheck __jail POLICY-JSON PROGRAM [ARGS...]");
        return ExitCode::from(2);
    };
    let mut env = policy.env.clone();
    if policy.threads_only_children && !policy.off.iter().any(|o| o == "seccomp") {
        match super::filter::threads_only_programs() {
            Ok(programs) => env.push((super::filter::THREADS_ONLY_VAR.to_string(), programs)),
            Err(why) => eprintln!("stagecheck jail: its children without the threads-only filter: {why}"),
        }
    }
    let lacking = confine(&policy);
    if !lacking.is_empty() {
        eprintln!("stagecheck jail: without {}", lacking.join("; without "));
    }
    use std::os::unix::process::CommandExt;
    let error = std::process::Command::new(&program).args(args).env_clear().envs(env).exec();
    eprintln!("stagecheck jail: cannot run {}: {error}", program.to_string_lossy());
    ExitCode::from(CANNOT_START)
}

/// Applies every layer to this process; the layers it could not apply, each with why.
pub fn confine(policy: &Policy) -> Vec<String> {
    let mut lacking = Vec::new();
    let on = |name: &str| !policy.off.iter().any(|o| o == name);
    crate::worker::confine::close_inherited();
    // Namespaces need a capability that is dropped next.
    let own_proc = match new_namespaces() {
        Ok(Namespaces::All) => true,
        Ok(Namespaces::NetworkOnly(why)) => {
            lacking.push(format!("a PID namespace (other processes' /proc readable): {why}"));
            false
        }
        Err(why) => {
            lacking.push(format!("a network namespace: {why}"));
            false
        }
    };
    drop_capabilities();
    if on("rlimits") {
        if let Err(why) = rlimits(policy) {
            lacking.push(format!("rlimits: {why}"));
        }
    }
    if on("landlock") {
        if let Err(why) = super::paths::restrict(policy, own_proc) {
            lacking.push(format!("landlock: {why}"));
        }
    }
    if on("seccomp") {
        if let Err(why) = super::filter::apply(policy.forks) {
            lacking.push(format!("seccomp: {why}"));
        }
    }
    lacking
}

/// Which namespaces the jail got.
enum Namespaces {
    /// Network, PID and mount: the program sees only its own processes in
    /// a `/proc` of its own.
    All,
    /// The network only, and why not the others.
    NetworkOnly(String),
}

/// New network, PID and mount namespaces: no interface but a loopback that
/// is down; the program is the first process of its PID namespace (this
/// launcher forks it and stays outside, passing its exit on), under a
/// `/proc` of its own that lists no host process.
fn new_namespaces() -> Result<Namespaces, String> {
    let error = || std::io::Error::last_os_error().to_string();
    // SAFETY: unshare, fork, mount and prctl with valid arguments, in a
    // process with one thread.
    unsafe {
        if libc::unshare(libc::CLONE_NEWNET | libc::CLONE_NEWPID | libc::CLONE_NEWNS) != 0 {
            let why = error();
            return if libc::unshare(libc::CLONE_NEWNET) == 0 { Ok(Namespaces::NetworkOnly(why)) } else { Err(error()) };
        }
        match libc::fork() {
            -1 => return Err(error()),
            0 => {}
            child => pass_on_exit(child),
        }
        libc::prctl(libc::PR_SET_PDEATHSIG, libc::SIGKILL);
        let none = std::ptr::null();
        let private = libc::mount(c"none".as_ptr(), c"/".as_ptr(), none, libc::MS_REC | libc::MS_PRIVATE, none.cast());
        let flags = libc::MS_NOSUID | libc::MS_NODEV | libc::MS_NOEXEC;
        if private != 0 || libc::mount(c"proc".as_ptr(), c"/proc".as_ptr(), c"proc".as_ptr(), flags, none.cast()) != 0 {
            return Ok(Namespaces::NetworkOnly(format!("cannot mount its /proc: {}", error())));
        }
    }
    Ok(Namespaces::All)
}

/// The launcher's part once it has forked the program's process: it holds
/// none of the program's descriptors, waits for it, and ends as it ended
/// (the same exit status, or killed by the same signal), so the parent
/// reads the program's end as its own worker's.
fn pass_on_exit(child: libc::pid_t) -> ! {
    // SAFETY: closing this process's copies of stdin and stdout, waiting for
    // its child, and ending; nothing else runs in this process.
    unsafe {
        libc::close(0);
        libc::close(1);
        let mut status = 0;
        while libc::waitpid(child, &mut status, 0) == -1 && *libc::__errno_location() == libc::EINTR {}
        if libc::WIFSIGNALED(status) {
            let signal = libc::WTERMSIG(status);
            libc::signal(signal, libc::SIG_DFL);
            let none = libc::rlimit { rlim_cur: 0, rlim_max: 0 };
            libc::setrlimit(libc::RLIMIT_CORE, &none);
            libc::kill(libc::getpid(), signal);
        }
        libc::_exit(libc::WEXITSTATUS(status));
    }
}

/// Drops every capability, for good: the bounding and ambient sets, then
/// the effective, permitted and inheritable ones; then `no_new_privs`.
fn drop_capabilities() {
    // SAFETY: prctl and capset with valid arguments; failures leave the
    // process as it was (a non-root process has nothing to drop).
    unsafe {
        for cap in 0..64 {
            libc::prctl(libc::PR_CAPBSET_DROP, cap, 0, 0, 0);
        }
        libc::prctl(libc::PR_CAP_AMBIENT, libc::PR_CAP_AMBIENT_CLEAR_ALL, 0, 0, 0);
        #[repr(C)]
        struct Header {
            version: u32,
            pid: i32,
        }
        #[repr(C)]
        #[derive(Clone, Copy)]
        struct Data {
            effective: u32,
            permitted: u32,
            inheritable: u32,
        }
        const VERSION_3: u32 = 0x2008_0522;
        let header = Header { version: VERSION_3, pid: 0 };
        let data = [Data { effective: 0, permitted: 0, inheritable: 0 }; 2];
        libc::syscall(libc::SYS_capset, &header as *const Header, data.as_ptr());
        libc::prctl(libc::PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0);
    }
}

fn rlimits(policy: &Policy) -> Result<(), String> {
    use crate::worker::confine::lower;
    if let Some(memory) = policy.memory {
        lower(libc::RLIMIT_AS, memory)?;
    }
    if let Some(cpu) = policy.cpu {
        lower(libc::RLIMIT_CPU, cpu)?;
    }
    lower(libc::RLIMIT_FSIZE, policy.file_size)?;
    lower(libc::RLIMIT_CORE, 0)?;
    Ok(())
}

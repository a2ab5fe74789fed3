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
    let lacking = confine(&policy);
    if !lacking.is_empty() {
        eprintln!("stagecheck jail: without {}", lacking.join("; without "));
    }
    use std::os::unix::process::CommandExt;
    let error = std::process::Command::new(&program).args(args).env_clear().envs(policy.env.iter().map(|(k, v)| (k, v))).exec();
    eprintln!("stagecheck jail: cannot run {}: {error}", program.to_string_lossy());
    ExitCode::from(CANNOT_START)
}

/// Applies every layer to this process; the layers it could not apply, each with why.
pub fn confine(policy: &Policy) -> Vec<String> {
    let mut lacking = Vec::new();
    let on = |name: &str| !policy.off.iter().any(|o| o == name);
    close_inherited();
    // The network namespace needs a capability that is dropped next.
    if let Err(why) = new_network() {
        lacking.push(format!("a network namespace: {why}"));
    }
    drop_capabilities();
    if on("rlimits") {
        if let Err(why) = rlimits(policy) {
            lacking.push(format!("rlimits: {why}"));
        }
    }
    if on("landlock") {
        if let Err(why) = super::paths::restrict(policy) {
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

/// Closes every descriptor but stdin, stdout and stderr.
fn close_inherited() {
    // SAFETY: closes descriptors nothing in this process uses.
    unsafe {
        libc::syscall(libc::SYS_close_range, 3u32, u32::MAX, 0u32);
    }
}

/// A new network namespace: no interface but a loopback that is down.
fn new_network() -> Result<(), String> {
    // SAFETY: unshare has no memory-safety preconditions.
    if unsafe { libc::unshare(libc::CLONE_NEWNET) } == 0 {
        return Ok(());
    }
    Err(std::io::Error::last_os_error().to_string())
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

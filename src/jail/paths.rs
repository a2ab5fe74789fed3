//! The jail's Landlock layer: which paths a jailed process may read, write
//! and execute. Built and applied by the launcher itself (a fresh process,
//! before `exec`), so its own `/proc/<pid>` — the program's, after `exec` —
//! can be named, and no other process's.

use super::Policy;
use landlock::{Access, AccessFs, AccessNet, PathBeneath, PathFd, Ruleset, RulesetAttr, RulesetCreatedAttr, RulesetStatus, Scope, ABI};
use std::path::PathBuf;

/// What every jailed process may read besides its policy's paths: the
/// system's libraries and the few files an interpreter reads at start.
pub const SYSTEM_READ: &[&str] = &["/usr", "/lib", "/lib64", "/etc/ld.so.cache", "/etc/localtime", "/dev/null", "/dev/urandom"];
/// What of `/proc` and `/sys` an interpreter (TensorFlow: the CPU's features
/// and cache sizes) may read: nothing about another process.
pub const KERNEL_READ: &[&str] =
    &["/proc/cpuinfo", "/proc/meminfo", "/proc/stat", "/proc/filesystems", "/sys/devices/system/cpu", "/sys/fs/cgroup"];
/// The dynamic loader, which the kernel opens for execution with the interpreter.
const LOADERS: &[&str] = &["/lib64/ld-linux-x86-64.so.2", "/lib/ld-linux-aarch64.so.1"];

/// Restricts this process to `policy`'s paths; what it enforces in words,
/// or why not. `own_proc`: `/proc` is the jail's own mount, listing only its
/// processes, and may be read whole.
pub fn restrict(policy: &Policy, own_proc: bool) -> Result<String, String> {
    let abi = ABI::V6;
    let read = AccessFs::ReadFile | AccessFs::ReadDir;
    let mut created = Ruleset::default()
        .handle_access(AccessFs::from_all(abi))
        .and_then(|r| r.handle_access(AccessNet::from_all(abi)))
        .and_then(|r| r.scope(Scope::from_all(abi)))
        .and_then(|r| r.create())
        .map_err(|e| e.to_string())?;
    // Its own /proc lists only the jail's processes; the host's, only this one's.
    let own = if own_proc { PathBuf::from("/proc") } else { PathBuf::from(format!("/proc/{}", std::process::id())) };
    let readable = policy.read.iter().cloned().chain(SYSTEM_READ.iter().chain(KERNEL_READ).map(PathBuf::from)).chain(std::iter::once(own));
    let mut rules: Vec<(PathBuf, landlock::BitFlags<AccessFs>)> = Vec::new();
    for path in readable.filter(|p| p.exists()) {
        let access = if path.is_dir() { read } else { AccessFs::ReadFile.into() };
        rules.push((path, access));
    }
    if let Some(dir) = policy.write.as_ref().filter(|d| d.is_dir()) {
        // Everything but running files and making device nodes, FIFOs and sockets.
        let mut access = AccessFs::from_all(abi);
        for kept in [AccessFs::Execute, AccessFs::MakeChar, AccessFs::MakeBlock, AccessFs::MakeFifo, AccessFs::MakeSock] {
            access.remove(kept);
        }
        rules.push((dir.clone(), access));
    }
    let loaders = LOADERS.iter().filter_map(|l| std::fs::canonicalize(l).ok());
    for path in policy.exec.iter().cloned().chain(loaders).filter(|p| p.exists()) {
        let access = if path.is_dir() { read | AccessFs::Execute } else { AccessFs::Execute | AccessFs::ReadFile };
        rules.push((path, access));
    }
    for (path, access) in rules {
        let fd = PathFd::new(&path).map_err(|e| format!("{}: {e}", path.display()))?;
        created = created.add_rule(PathBeneath::new(fd, access)).map_err(|e| e.to_string())?;
    }
    let status = created.restrict_self().map_err(|e| e.to_string())?;
    match status.ruleset {
        RulesetStatus::FullyEnforced => Ok("landlock: its paths only, its own /proc, no TCP, no signal out".into()),
        RulesetStatus::PartiallyEnforced => Ok("landlock (partly: an older kernel's ABI): its paths only".into()),
        RulesetStatus::NotEnforced => Err("the kernel has no Landlock".into()),
    }
}

//! The CPython oracle's runs, and the Python targets' workers
//! (`crate::targets`), confined by the OS: the wrapper's importer is
//! Python code, and a program can reach the real `__import__` through its
//! `__globals__` (`__import__.__globals__['builtins'].__import__('os')`), so
//! the wrapper is no sandbox by itself. Each run of the interpreter is
//! therefore put under a Landlock ruleset in the child between `fork` and
//! `exec`: files may be read only beneath the interpreter's prefixes and the
//! system's library directories (its standard library and shared
//! libraries), executed only where they are the interpreter itself or the
//! dynamic loader (so `os.system` and `subprocess` cannot start a shell or
//! any other command), never written, created or removed; no TCP bind or
//! connect (ABI 4); no signals out (ABI 6). A target's worker also reads
//! `/proc` and `/sys` (TensorFlow reads its CPU's features there) and writes
//! beneath one private temporary directory of its own (AutoGraph writes each
//! converted function there as a module). The rlimits (address space, CPU)
//! are the wrapper's own. Where the kernel has no Landlock the caller says so
//! once on stderr and runs without it.
//!
//! The ruleset is built before `fork` (opening the paths allocates); the
//! child only calls `landlock_restrict_self` (no allocation after `fork` in
//! a process with other threads).

use landlock::{
    Access, AccessFs, AccessNet, PathBeneath, PathFd, Ruleset, RulesetAttr, RulesetCreated, RulesetCreatedAttr, Scope, ABI,
};
use std::path::{Path, PathBuf};
use std::sync::{Mutex, Once};

/// Directories whose files the interpreter may read besides its prefixes.
const SYSTEM_READ: &[&str] = &["/usr", "/lib", "/lib64", "/etc/ld.so.cache", "/dev/null", "/dev/urandom"];
/// The dynamic loader, which the kernel opens for execution with the interpreter.
const LOADERS: &[&str] = &["/lib64/ld-linux-x86-64.so.2", "/lib/ld-linux-aarch64.so.1"];

/// A ruleset for one run of `executable` (prefixes: `sys.prefix`,
/// `sys.base_prefix`, and any other directory it may read), writing only
/// beneath `writable`, or why there is none.
pub fn ruleset(executable: &Path, prefixes: &[PathBuf], writable: &[PathBuf]) -> Result<RulesetCreated, String> {
    let abi = ABI::V6;
    let read = AccessFs::ReadFile | AccessFs::ReadDir;
    let mut created = Ruleset::default()
        .handle_access(AccessFs::from_all(abi))
        .and_then(|r| r.handle_access(AccessNet::from_all(abi)))
        .and_then(|r| r.scope(Scope::from_all(abi)))
        .and_then(|r| r.create())
        .map_err(|e| e.to_string())?;
    let readable = prefixes.iter().map(PathBuf::as_path).chain(SYSTEM_READ.iter().map(Path::new));
    for path in readable.filter(|p| p.exists()) {
        let fd = PathFd::new(path).map_err(|e| e.to_string())?;
        let access = if path.is_dir() { read } else { AccessFs::ReadFile.into() };
        created = created.add_rule(PathBeneath::new(fd, access)).map_err(|e| e.to_string())?;
    }
    for path in writable.iter().filter(|p| p.is_dir()) {
        let fd = PathFd::new(path).map_err(|e| e.to_string())?;
        let mut access = AccessFs::from_all(abi);
        access.remove(AccessFs::Execute);
        created = created.add_rule(PathBeneath::new(fd, access)).map_err(|e| e.to_string())?;
    }
    let runnable = std::iter::once(executable.to_path_buf()).chain(LOADERS.iter().filter_map(|l| std::fs::canonicalize(l).ok()));
    for path in runnable.filter(|p| p.is_file()) {
        let fd = PathFd::new(&path).map_err(|e| e.to_string())?;
        created = created.add_rule(PathBeneath::new(fd, AccessFs::Execute | AccessFs::ReadFile)).map_err(|e| e.to_string())?;
    }
    Ok(created)
}

/// Puts `command` under `ruleset` when it runs (in the child, before exec);
/// `who` names the runs in the one line said where there is no ruleset.
pub fn apply(command: &mut std::process::Command, ruleset: Result<RulesetCreated, String>, who: &str) {
    use std::os::unix::process::CommandExt;
    let ruleset = match ruleset {
        Ok(r) => Mutex::new(Some(r)),
        Err(why) => {
            static SAID: Once = Once::new();
            SAID.call_once(|| eprintln!("stagecheck: {who} runs without Landlock here: {why}"));
            return;
        }
    };
    // SAFETY: the closure runs in the child between fork and exec; it takes
    // the ruleset built before the fork (an uncontended lock of its own) and
    // makes the landlock_restrict_self and prctl calls, allocating nothing.
    unsafe {
        command.pre_exec(move || {
            if let Some(r) = ruleset.lock().ok().and_then(|mut r| r.take()) {
                r.restrict_self().map_err(|e| std::io::Error::other(e.to_string()))?;
            }
            Ok(())
        });
    }
}

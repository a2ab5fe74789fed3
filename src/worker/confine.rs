//! OS confinement of a worker process: the second wall, under the VM's own
//! sandbox (`executor/src/sandbox.rs`: no `os`, no `open`, an import
//! allow-list). Should a program get out of the VM (a red-team review found
//! crafted bytecode that wrote memory at will and called `system()`), the
//! process it then controls still runs no command, reads or writes no host
//! file, opens no connection, signals no other process and grows only so far.
//!
//! [`confine`] runs in the worker (`serve.rs`) once its interpreter is built
//! and before its first run; a worker for `staged-gpu` opens the GPU first
//! (the Vulkan loader reads manifests and libraries, drivers open devices:
//! nothing a run may do), and the parent starts such workers from the first
//! `staged-gpu` run on (`process.rs`).
//!
//! | layer | enforces | binds |
//! |---|---|---|
//! | (always) | descriptors inherited from the parent's own parent (a shell's, a CI runner's pipes) closed at start, but the socket and stderr ([`close_inherited`]) | the process |
//! | rlimits | address space: its size when confined (lavapipe's threads included) + 4 × the memory limit + 2 GiB (a run is stopped at twice its limit; mimalloc reserves 1 GiB arenas); descriptors: 32 above the highest open, at least 64; CPU: [`CPU_RECYCLE`] plus the most the worker can spend between two looks of the parent ([`cpu_limit`]; SIGXCPU past it); no core file | the process |
//! | Landlock | no filesystem access (read, write, execute, create, remove, truncate, device ioctls); no TCP bind or connect (ABI 4); no signal or abstract-socket connection out of the sandbox (ABI 6) | the serving thread and the threads it starts; every thread only from ABI 8 (Linux 7.0) |
//! | seccomp | an allow-list; every other call fails with EPERM (not a kill: the VM sees an error, the parent a clean outcome) | every thread (TSYNC) |
//!
//! The seccomp list: reads and writes on descriptors already open (the socket
//! to the parent, stderr, a driver's), memory, futexes, time, reading
//! identity and limits, signals to this process only, threads (`clone` with
//! `CLONE_THREAD`; `clone3`, whose flags are in memory a filter cannot read,
//! answers ENOSYS so that libc falls back to `clone`). Not on it: `execve`,
//! `fork`, `socket`, `connect`, `bind`, any `open` (read-only too: the
//! threads that predate Landlock are bound by seccomp alone), `ptrace`,
//! `mount`, `setrlimit`, `io_uring`, `bpf`, `setns`... `ioctl` is allowed but
//! for the socket range (0x89xx: interface configuration, which root may do)
//! and the wireless one, `TIOCSTI` and `TIOCLINUX`; `fcntl` only for flags,
//! duplicates and seals (no `F_SETOWN`: SIGIO to another process); `prctl`
//! only to name threads and memory and read state; `flock` (Mesa's cache).
//!
//! Mesa's shader cache: lavapipe keeps compiled kernels there, and a worker
//! that cannot read it compiles every kernel again (`fuzz --gpu` was 3x
//! slower: 12 checks/s instead of 35 on 2 cores). Its default cache opens a
//! file per kernel, which no confined thread may; so workers get Mesa's
//! single-file cache, opened with the GPU and appended through those
//! descriptors, in stagecheck's own directory (`process.rs`).
//!
//! Why an allow-list: after its setup the worker needs few calls, and the GPU
//! drivers' (lavapipe: futexes, memory, eventfds, its cache's descriptors; a
//! vendor driver: `ioctl` on devices it opened before, not tried here) fit in
//! it; a deny-list lets through every call it forgets. Checked by tracing
//! workers (strace) over the corpus, the GPU corpus and `tests/workers.rs`:
//! they were refused only `getcwd` and `access` when RustPython rebuilt an
//! interpreter after a crash (`sys.executable` comes out the same), and the
//! CPU count's files in the watchdog it started then (glibc falls back).
//! Path-based `stat` stays allowed (glibc's `fstat` is `newfstatat`, whose
//! path a filter cannot read): a program that got out could learn whether a
//! host path exists, not what it holds.
//!
//! A vendor GPU driver opens device nodes again after setup (NVIDIA's: as
//! it maps memory; found on an H200, where every staged-gpu run of a
//! confined worker failed "Out of Memory" until this): the worker runs one
//! op on the GPU before confining ([`super::serve`]), and where it then
//! holds device nodes ([`gpu_nodes`]: `/dev/nvidia0` and its siblings of
//! the same stem) Landlock grants reading, writing and ioctls on those
//! nodes alone, and seccomp allows `open`/`openat` without creating,
//! truncating, appending or write-only flags ([`OPEN_REFUSED`]); Landlock
//! says which paths (on the serving thread; threads older than it are held
//! by seccomp alone, which then lets them open an existing host file for
//! reading and writing, until ABI 8 binds every thread). lavapipe holds no
//! device node, so its workers get neither. `stagecheck devices` prints a
//! GPU worker's confinement; `STAGECHECK_CONFINE_LOG=1` has seccomp log to
//! the kernel's audit log (`dmesg`) what it would refuse, and allow it.
//!
//! Before Linux 7.0 Landlock binds the calling thread only: the main thread
//! (waiting on the serving thread), the executor's watchdog and lavapipe's
//! threads predate it, and seccomp alone keeps them from opening anything.
//! What they hold open stays usable: the GPU's devices, and in a GPU worker
//! the shader cache, where a program that got out of one worker could write
//! bad kernels for the others (confined as it is), nothing more.
//!
//! `RLIMIT_NPROC` is not set: it counts every thread of the user, on the
//! whole machine, and root ignores it; seccomp is what stops new processes.
//! `RLIMIT_FSIZE` neither: it would stop Mesa's cache file from growing and
//! bound a GPU driver's memfds, and no other writable file is open.
//!
//! Where the kernel lacks a layer (no Landlock, seccomp refused, another
//! architecture) the worker goes on without it; [`Confinement::lacking`] says
//! which and why, and the parent says so once on its own stderr (a worker's
//! stderr is kept only for crash messages). [`Confinement::summary`] is what
//! `stagecheck devices` shows.
//!
//! `STAGECHECK_NO_CONFINE=1` (or `all`) turns confinement off, for a test
//! build or to tell whether it is to blame; a comma-separated list of layers
//! (`rlimits`, `landlock`, `seccomp`) turns those off only.
//! `tests/confine.rs` proves each layer alone stops what it should: native
//! code in the worker (`__stagecheck_os_probe__`, `Config::debug_os_probe`)
//! tries. On Linux 6.18 (Landlock ABI 7): seccomp alone refuses a command, a
//! file read, a file creation, a TCP connection and a signal to the parent
//! (EPERM); Landlock alone the same (EACCES; the signal EPERM); the rlimits
//! alone a 64 GiB reservation (ENOMEM) and a hundred more descriptors
//! (EMFILE); with none, all succeed. The cost, within the noise of 2 shared
//! cores: `benches/fuzz.rs` 104-110 checks/s confined, 107-110 not; `fuzz
//! --gpu` (300 programs, 2 jobs) 42-53 confined, 40-53 not.

use crate::executor::{worker::GRACE, Config};
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;
use std::time::Duration;

/// The environment variable that turns confinement (or some layers) off.
pub const OFF_VAR: &str = "STAGECHECK_NO_CONFINE";

/// CPU time past which the parent replaces a worker between runs; the
/// worker's `RLIMIT_CPU` is this plus the most it can spend between two
/// looks ([`cpu_limit`]), so a healthy worker never meets the limit.
pub const CPU_RECYCLE: Duration = Duration::from_secs(30 * 60);

/// What confines a worker, as its `Ready` reply tells the parent.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Confinement {
    /// One line: what each layer enforces here, or why it does not.
    pub summary: String,
    /// The layers this kernel (or architecture) lacks, each with why.
    pub lacking: Vec<String>,
}

/// The layers to apply.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Layers {
    pub(crate) rlimits: bool,
    pub(crate) landlock: bool,
    pub(crate) seccomp: bool,
}

/// Confines this process (see the module doc); never fails: what could not
/// be applied is in the answer.
pub fn confine(config: &Config) -> Confinement {
    let (layers, note) = layers_from(std::env::var(OFF_VAR).ok().as_deref());
    let mut summary = Vec::new();
    let mut lacking = Vec::new();
    let mut layer = |name: &str, on: bool, apply: &dyn Fn() -> Result<String, String>| {
        if !on {
            summary.push(format!("{name} off ({OFF_VAR})"));
            return;
        }
        match apply() {
            Ok(what) => summary.push(what),
            Err(why) => {
                summary.push(format!("{name} unavailable: {why}"));
                lacking.push(format!("{name}: {why}"));
            }
        }
    };
    // A vendor GPU driver's device nodes, which it opens again later.
    let nodes = gpu_nodes();
    // Limits first (seccomp then forbids raising them), Landlock before
    // seccomp (whose list has no Landlock calls).
    layer("rlimits", layers.rlimits, &|| rlimits(config));
    layer("landlock", layers.landlock, &|| landlock(&nodes));
    layer("seccomp", layers.seccomp, &|| seccomp(!nodes.is_empty()));
    if !nodes.is_empty() {
        let names: Vec<String> = nodes.iter().map(|n| n.display().to_string()).collect();
        summary.push(format!("the GPU driver may open again {}", names.join(", ")));
    }
    if let Some(note) = note {
        summary.push(note);
    }
    Confinement { summary: summary.join("; "), lacking }
}

/// The layers `STAGECHECK_NO_CONFINE` leaves on, and a note on a name it
/// does not know (which turns nothing off: confinement fails safe).
pub(crate) fn layers_from(value: Option<&str>) -> (Layers, Option<String>) {
    let all = Layers { rlimits: true, landlock: true, seccomp: true };
    let value = value.unwrap_or("").trim();
    match value {
        "" | "0" => return (all, None),
        "1" | "all" => return (Layers { rlimits: false, landlock: false, seccomp: false }, None),
        _ => {}
    }
    let mut layers = all;
    for name in value.split(',').map(str::trim) {
        match name {
            "rlimits" => layers.rlimits = false,
            "landlock" => layers.landlock = false,
            "seccomp" => layers.seccomp = false,
            _ => return (all, Some(format!("{OFF_VAR}={value:?} names no layer (rlimits, landlock, seccomp): all applied"))),
        }
    }
    (layers, None)
}

/// Closes every descriptor but stdin, stdout (the socket to the parent) and
/// stderr: what the parent inherited and did not mark close-on-exec (a
/// shell's or a CI runner's pipes) is no business of a worker. Called first
/// thing, before anything of the worker's own is open.
pub fn close_inherited() {
    // SAFETY: closes descriptors nothing in this process uses yet.
    if unsafe { libc::syscall(libc::SYS_close_range, 3u32, u32::MAX, 0u32) } == 0 {
        return;
    }
    // Kernels before 5.9: one by one.
    let Ok(dir) = std::fs::read_dir("/proc/self/fd") else { return };
    let open: Vec<i32> = dir.filter_map(|e| e.ok()?.file_name().to_str()?.parse().ok()).filter(|fd| *fd > 2).collect();
    for fd in open {
        // SAFETY: as above (the directory's own descriptor fails harmlessly).
        unsafe { libc::close(fd) };
    }
}

/// CPU seconds a worker may spend in all: [`CPU_RECYCLE`], past which the
/// parent replaces it at its next look, plus what `ncpu` threads can burn
/// in the runs between two looks.
pub fn cpu_limit(config: &Config, ncpu: u64) -> u64 {
    let per_run = (config.time_limit + GRACE).as_secs_f64().ceil() as u64;
    CPU_RECYCLE.as_secs() + super::process::LOOK_EVERY * per_run * ncpu.max(1)
}

fn rlimits(config: &Config) -> Result<String, String> {
    let ncpu = std::thread::available_parallelism().map_or(1, |n| n.get() as u64);
    let address_space = vm_size().saturating_add((config.memory_limit as u64).saturating_mul(4)).saturating_add(2 << 30);
    let address_space = lower(libc::RLIMIT_AS, address_space)?;
    let descriptors = lower(libc::RLIMIT_NOFILE, (highest_fd() + 1 + 32).max(64))?;
    let cpu = lower(libc::RLIMIT_CPU, cpu_limit(config, ncpu))?;
    lower(libc::RLIMIT_CORE, 0)?;
    Ok(format!(
        "rlimits: address space {:.1} GiB, {descriptors} descriptors, {cpu} s of CPU, no core",
        address_space as f64 / (1u64 << 30) as f64
    ))
}

/// Sets a limit (soft and hard) to `value`, or leaves it where it already is
/// lower; the limit in force.
pub(crate) fn lower(resource: libc::__rlimit_resource_t, value: u64) -> Result<u64, String> {
    let mut now = libc::rlimit { rlim_cur: 0, rlim_max: 0 };
    // SAFETY: a valid resource and out-pointer.
    if unsafe { libc::getrlimit(resource, &mut now) } != 0 {
        return Err(format!("getrlimit: {}", std::io::Error::last_os_error()));
    }
    let value = value.min(now.rlim_max);
    let new = libc::rlimit { rlim_cur: value, rlim_max: value };
    // SAFETY: as above.
    if unsafe { libc::setrlimit(resource, &new) } != 0 {
        return Err(format!("setrlimit: {}", std::io::Error::last_os_error()));
    }
    Ok(value)
}

/// This process's virtual size in bytes (2 GiB where unknown).
fn vm_size() -> u64 {
    let statm = std::fs::read_to_string("/proc/self/statm").unwrap_or_default();
    let pages: Option<u64> = statm.split_whitespace().next().and_then(|p| p.parse().ok());
    // SAFETY: sysconf has no preconditions.
    let page = unsafe { libc::sysconf(libc::_SC_PAGESIZE) }.max(4096) as u64;
    pages.map_or(2 << 30, |p| p * page)
}

/// The highest descriptor this process holds (64 where unknown).
fn highest_fd() -> u64 {
    let Ok(dir) = std::fs::read_dir("/proc/self/fd") else { return 64 };
    dir.filter_map(|e| e.ok()?.file_name().to_str()?.parse::<u64>().ok()).max().unwrap_or(2)
}

/// Character devices other than a GPU's that a worker may hold open.
const NOT_GPU_NODES: &[&str] = &["/dev/null", "/dev/zero", "/dev/full", "/dev/random", "/dev/urandom", "/dev/ptmx", "/dev/console"];

/// The device nodes (beyond stdio) this process holds open once its GPU is
/// up, and their siblings of the same name stem (`/dev/nvidia0` brings
/// `/dev/nvidiactl`, `/dev/nvidia-uvm`...): a vendor driver (NVIDIA's)
/// opens them again as it maps memory, where lavapipe holds none. Empty
/// without a GPU.
fn gpu_nodes() -> Vec<std::path::PathBuf> {
    use std::os::unix::fs::FileTypeExt;
    let Ok(dir) = std::fs::read_dir("/proc/self/fd") else { return Vec::new() };
    let mut open: Vec<std::path::PathBuf> = dir
        .filter_map(|e| {
            let e = e.ok()?;
            let fd: u32 = e.file_name().to_str()?.parse().ok()?;
            let path = std::fs::read_link(e.path()).ok()?;
            let text = path.to_str()?;
            let device = std::fs::metadata(&path).ok()?.file_type().is_char_device();
            let plain = NOT_GPU_NODES.contains(&text) || text.starts_with("/dev/tty") || text.starts_with("/dev/pts/");
            (fd > 2 && device && !plain).then_some(path)
        })
        .collect();
    open.sort();
    open.dedup();
    let mut nodes = Vec::new();
    for node in &open {
        let (Some(parent), Some(name)) = (node.parent(), node.file_name().and_then(|n| n.to_str())) else { continue };
        let stem: String = name.chars().take_while(|c| c.is_ascii_alphabetic()).collect();
        let Ok(siblings) = std::fs::read_dir(parent) else { continue };
        for sibling in siblings.filter_map(|e| e.ok()) {
            let char_device = sibling.file_type().is_ok_and(|t| t.is_char_device());
            if char_device && !stem.is_empty() && sibling.file_name().to_str().is_some_and(|n| n.starts_with(&stem)) {
                nodes.push(sibling.path());
            }
        }
    }
    nodes.sort();
    nodes.dedup();
    nodes
}

fn landlock(gpu_nodes: &[std::path::PathBuf]) -> Result<String, String> {
    use landlock::{
        Access, AccessFs, AccessNet, LandlockStatus, PathBeneath, PathFd, RestrictSelfAttr, Ruleset, RulesetAttr, RulesetCreatedAttr,
        RulesetStatus, Scope, ABI,
    };
    // Everything the crate knows to restrict, as far as the kernel can; the
    // one rule granting anything back: reading, writing and ioctls on the
    // GPU's device nodes (none without a vendor driver).
    let abi = ABI::V10;
    let device = AccessFs::ReadFile | AccessFs::WriteFile | AccessFs::IoctlDev;
    let rules = gpu_nodes.iter().filter_map(|n| PathFd::new(n).ok()).map(|fd| Ok(PathBeneath::new(fd, device)));
    let status = Ruleset::default()
        .handle_access(AccessFs::from_all(abi))
        .and_then(|r| r.handle_access(AccessNet::from_all(abi)))
        .and_then(|r| r.scope(Scope::from_all(abi)))
        .and_then(|r| r.create())
        .and_then(|r| r.add_rules(rules))
        .and_then(|r| r.all_threads(true))
        .and_then(|r| r.restrict_self())
        .map_err(|e| e.to_string())?;
    let abi = match status.landlock {
        LandlockStatus::Available { effective_abi, .. } => effective_abi as i32,
        LandlockStatus::NotEnabled => return Err("not enabled in this kernel (boot parameter lsm=)".into()),
        LandlockStatus::NotImplemented => return Err("not built into this kernel".into()),
    };
    // Partly enforced is the rule (what a newer kernel adds is dropped).
    if status.ruleset == RulesetStatus::NotEnforced {
        return Err(format!("ABI {abi}: the ruleset was not enforced"));
    }
    let mut what = vec!["no filesystem"];
    if abi >= 4 {
        what.push("no TCP");
    }
    if abi >= 6 {
        what.push("no signals out");
    }
    let threads = if status.all_threads { "every thread" } else { "the serving thread" };
    Ok(format!("landlock ABI {abi}: {} ({threads})", what.join(", ")))
}

/// Calls allowed whatever their arguments (see [`seccomp`] for the others).
#[rustfmt::skip]
const ALLOWED: &[libc::c_long] = &[
    // Descriptors already open: the socket to the parent, stderr, a driver's.
    libc::SYS_read, libc::SYS_write, libc::SYS_readv, libc::SYS_writev, libc::SYS_pread64, libc::SYS_pwrite64,
    libc::SYS_preadv, libc::SYS_pwritev, libc::SYS_preadv2, libc::SYS_pwritev2, libc::SYS_close, libc::SYS_close_range,
    libc::SYS_dup, libc::SYS_dup3, libc::SYS_lseek, libc::SYS_fstat, libc::SYS_newfstatat, libc::SYS_statx,
    libc::SYS_ftruncate, libc::SYS_flock, libc::SYS_memfd_create, libc::SYS_ioctl,
    libc::SYS_recvfrom, libc::SYS_recvmsg, libc::SYS_recvmmsg, libc::SYS_sendto, libc::SYS_sendmsg, libc::SYS_sendmmsg,
    libc::SYS_shutdown, libc::SYS_getsockopt, libc::SYS_getsockname, libc::SYS_getpeername,
    libc::SYS_ppoll, libc::SYS_pselect6, libc::SYS_epoll_create1, libc::SYS_epoll_ctl, libc::SYS_epoll_pwait,
    libc::SYS_epoll_pwait2, libc::SYS_eventfd2, libc::SYS_timerfd_create, libc::SYS_timerfd_settime,
    libc::SYS_timerfd_gettime,
    // Memory.
    libc::SYS_mmap, libc::SYS_munmap, libc::SYS_mremap, libc::SYS_mprotect, libc::SYS_madvise, libc::SYS_brk,
    libc::SYS_msync, libc::SYS_mincore, libc::SYS_mlock, libc::SYS_munlock, libc::SYS_membarrier,
    libc::SYS_get_mempolicy,
    // Threads and their synchronisation.
    libc::SYS_futex, libc::SYS_futex_waitv, libc::SYS_set_robust_list, libc::SYS_get_robust_list, libc::SYS_rseq,
    libc::SYS_set_tid_address, libc::SYS_sched_yield, libc::SYS_sched_getaffinity, libc::SYS_sched_getparam,
    libc::SYS_sched_getscheduler, libc::SYS_sched_get_priority_max, libc::SYS_sched_get_priority_min,
    libc::SYS_getcpu, libc::SYS_exit, libc::SYS_exit_group, libc::SYS_restart_syscall,
    // Time, identity, resources (reading only).
    libc::SYS_nanosleep, libc::SYS_clock_nanosleep, libc::SYS_clock_gettime, libc::SYS_clock_getres,
    libc::SYS_gettimeofday, libc::SYS_getpid, libc::SYS_gettid, libc::SYS_getppid, libc::SYS_getuid,
    libc::SYS_geteuid, libc::SYS_getgid, libc::SYS_getegid, libc::SYS_getresuid, libc::SYS_getresgid,
    libc::SYS_getgroups, libc::SYS_getrusage, libc::SYS_times, libc::SYS_sysinfo, libc::SYS_uname,
    libc::SYS_getrandom, libc::SYS_getrlimit,
    // Signals of this process (sending one: see `seccomp`).
    libc::SYS_rt_sigaction, libc::SYS_rt_sigprocmask, libc::SYS_rt_sigreturn, libc::SYS_sigaltstack,
    libc::SYS_rt_sigpending, libc::SYS_rt_sigsuspend, libc::SYS_rt_sigtimedwait,
    #[cfg(target_arch = "x86_64")]
    libc::SYS_poll,
    #[cfg(target_arch = "x86_64")]
    libc::SYS_select,
    #[cfg(target_arch = "x86_64")]
    libc::SYS_epoll_wait,
    #[cfg(target_arch = "x86_64")]
    libc::SYS_arch_prctl,
    #[cfg(target_arch = "x86_64")]
    libc::SYS_time,
    #[cfg(target_arch = "x86_64")]
    libc::SYS_dup2,
];

/// `prctl` options allowed: naming threads and memory, reading state.
const PRCTL_ALLOWED: &[u64] = &[
    libc::PR_SET_NAME as u64,
    libc::PR_GET_NAME as u64,
    0x5356_4d41, // PR_SET_VMA (mimalloc names its regions)
    libc::PR_GET_DUMPABLE as u64,
    libc::PR_CAPBSET_READ as u64,
    libc::PR_GET_NO_NEW_PRIVS as u64,
    libc::PR_GET_SECCOMP as u64,
    libc::PR_GET_TIMERSLACK as u64,
];

/// `fcntl` commands allowed: flags, duplicates, memfd seals.
const FCNTL_ALLOWED: &[u64] = &[
    libc::F_DUPFD as u64,
    libc::F_DUPFD_CLOEXEC as u64,
    libc::F_GETFD as u64,
    libc::F_SETFD as u64,
    libc::F_GETFL as u64,
    libc::F_SETFL as u64,
    libc::F_ADD_SEALS as u64,
    libc::F_GET_SEALS as u64,
];

/// How many calls the filter allows, counting those allowed on conditions.
pub fn allowed_calls() -> usize {
    ALLOWED.len() + 9
}

/// `open`/`openat` flags a GPU worker may not pass: it re-opens its
/// driver's device nodes read-write, and creates, truncates or appends to
/// nothing (which node it opens is Landlock's to say: a filter cannot read
/// a path).
const OPEN_REFUSED: u64 =
    (libc::O_WRONLY | libc::O_CREAT | libc::O_TRUNC | libc::O_APPEND | libc::O_DIRECTORY | libc::O_PATH | libc::O_TMPFILE) as u64;

/// The environment variable that makes the seccomp filter log what it
/// would refuse (the kernel's audit log, `dmesg`) and allow it: to learn
/// which calls a new GPU driver needs.
pub const LOG_VAR: &str = "STAGECHECK_CONFINE_LOG";

fn seccomp(gpu_opens: bool) -> Result<String, String> {
    use seccompiler::{
        apply_filter_all_threads, BpfProgram, SeccompAction, SeccompCmpArgLen as Len, SeccompCmpOp as Op, SeccompCondition, SeccompFilter,
        SeccompRule, TargetArch,
    };
    let arch: TargetArch = std::env::consts::ARCH.try_into().map_err(|_| format!("no filter for {}", std::env::consts::ARCH))?;
    let cond = |arg: u8, len: Len, op: Op, value: u64| SeccompCondition::new(arg, len, op, value).map_err(|e| e.to_string());
    let rule = |conditions: Vec<SeccompCondition>| SeccompRule::new(conditions).map_err(|e| e.to_string());
    let each = |arg: u8, values: &[u64]| -> Result<Vec<SeccompRule>, String> {
        values.iter().map(|v| rule(vec![cond(arg, Len::Dword, Op::Eq, *v)?])).collect()
    };
    let me = u64::from(std::process::id());
    let mut allowed: BTreeMap<i64, Vec<SeccompRule>> = ALLOWED.iter().map(|n| (*n, Vec::new())).collect();
    // Threads, not processes (`clone3`: see below).
    let thread = libc::CLONE_THREAD as u64;
    allowed.insert(libc::SYS_clone, vec![rule(vec![cond(0, Len::Dword, Op::MaskedEq(thread), thread)?])?]);
    allowed.insert(libc::SYS_clone3, Vec::new());
    // Signals to this process only.
    for call in [libc::SYS_kill, libc::SYS_tgkill, libc::SYS_rt_sigqueueinfo, libc::SYS_rt_tgsigqueueinfo] {
        allowed.insert(call, each(0, &[me])?);
    }
    // Limits read, never set.
    allowed.insert(libc::SYS_prlimit64, vec![rule(vec![cond(2, Len::Qword, Op::Eq, 0)?])?]);
    allowed.insert(libc::SYS_prctl, each(0, PRCTL_ALLOWED)?);
    allowed.insert(libc::SYS_fcntl, each(1, FCNTL_ALLOWED)?);
    debug_assert_eq!(allowed.len(), allowed_calls());
    if gpu_opens {
        let open =
            |arg: u8| -> Result<Vec<SeccompRule>, String> { Ok(vec![rule(vec![cond(arg, Len::Dword, Op::MaskedEq(OPEN_REFUSED), 0)?])?]) };
        allowed.insert(libc::SYS_openat, open(2)?);
        #[cfg(target_arch = "x86_64")]
        allowed.insert(libc::SYS_open, open(1)?);
    }
    let logging = std::env::var_os(LOG_VAR).is_some_and(|v| !v.is_empty() && v != "0");
    let eperm = SeccompAction::Errno(libc::EPERM as u32);
    let refuse = if logging { SeccompAction::Log } else { eperm.clone() };
    // More filters refine what the list allows (the kernel gives the
    // strictest answer of all filters): `ioctl` but for the socket and
    // wireless ranges and the terminal's input injection, and `clone3`, whose
    // flags are in memory a filter cannot read, answered ENOSYS so that libc
    // falls back to `clone`. The list goes last: it allows no `seccomp`.
    // The request's type is libc's (`c_ulong` on glibc, `c_int` on musl).
    #[allow(clippy::unnecessary_cast)]
    let refused_ioctls = vec![
        rule(vec![cond(1, Len::Dword, Op::MaskedEq(0xff00), 0x8900)?])?,
        rule(vec![cond(1, Len::Dword, Op::MaskedEq(0xff00), 0x8b00)?])?,
        rule(vec![cond(1, Len::Dword, Op::Eq, libc::TIOCSTI as u64)?])?,
        rule(vec![cond(1, Len::Dword, Op::Eq, libc::TIOCLINUX as u64)?])?,
    ];
    let filters = [
        SeccompFilter::new([(libc::SYS_clone3, Vec::new())].into(), SeccompAction::Allow, SeccompAction::Errno(libc::ENOSYS as u32), arch),
        SeccompFilter::new([(libc::SYS_ioctl, refused_ioctls)].into(), SeccompAction::Allow, eperm.clone(), arch),
        SeccompFilter::new(allowed, refuse, SeccompAction::Allow, arch),
    ];
    for filter in filters {
        let program: BpfProgram = filter.and_then(|f| f.try_into()).map_err(|e| e.to_string())?;
        apply_filter_all_threads(&program).map_err(|e| e.to_string())?;
    }
    let opens = if gpu_opens { " and opens without creating, writing only or truncating" } else { "" };
    let logged = if logging { format!(", logging what it would refuse ({LOG_VAR})") } else { String::new() };
    Ok(format!("seccomp: an allow-list of {} calls{opens} (every thread){logged}", allowed_calls()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_switch_turns_off_all_layers_or_the_named_ones_and_fails_safe() {
        let on = Layers { rlimits: true, landlock: true, seccomp: true };
        assert_eq!(layers_from(None), (on, None));
        assert_eq!(layers_from(Some("0")), (on, None));
        assert_eq!(layers_from(Some("1")).0, Layers { rlimits: false, landlock: false, seccomp: false });
        assert_eq!(layers_from(Some("all")).0, Layers { rlimits: false, landlock: false, seccomp: false });
        assert_eq!(layers_from(Some("seccomp, rlimits")).0, Layers { rlimits: false, landlock: true, seccomp: false });
        let (layers, note) = layers_from(Some("landlock,sandbox"));
        assert_eq!(layers, on, "an unknown name turns nothing off");
        assert!(note.unwrap().contains("names no layer"));
    }

    #[test]
    fn the_cpu_limit_leaves_room_above_the_recycling_point() {
        let config = Config::default();
        // 16 threads, each busy for 2 s of run and 2 s of grace, in every run between two looks.
        let between_looks = super::super::process::LOOK_EVERY * 4 * 16;
        assert_eq!(cpu_limit(&config, 16), CPU_RECYCLE.as_secs() + between_looks);
    }
}

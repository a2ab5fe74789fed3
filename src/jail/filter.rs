//! The jail's seccomp layer: a deny-list (why not an allow-list: the
//! module doc of [`super`]). Every call below fails with `EPERM`, so a
//! program sees an `OSError` and goes on; the jail's other layers bound
//! what the allowed calls reach.

use seccompiler::{
    apply_filter_all_threads, BpfProgram, SeccompAction, SeccompCmpArgLen as Len, SeccompCmpOp as Op, SeccompCondition, SeccompFilter,
    SeccompRule, TargetArch,
};
use std::collections::BTreeMap;

/// Refused in every jail: the network (a socket of any family: a UNIX
/// socket file outside the jail is reachable by path, which Landlock does
/// not guard), device nodes, other processes' memory and descriptors,
/// namespaces and mounts, the kernel's modules, keys, BPF and `io_uring`,
/// and leaving the process group the parent kills.
#[rustfmt::skip]
const REFUSED: &[libc::c_long] = &[
    libc::SYS_socket, libc::SYS_connect, libc::SYS_bind, libc::SYS_listen, libc::SYS_accept, libc::SYS_accept4,
    libc::SYS_mknodat, libc::SYS_ptrace, libc::SYS_process_vm_readv, libc::SYS_process_vm_writev,
    libc::SYS_pidfd_open, libc::SYS_pidfd_getfd, libc::SYS_pidfd_send_signal, libc::SYS_kcmp,
    libc::SYS_mount, libc::SYS_umount2, libc::SYS_pivot_root, libc::SYS_chroot, libc::SYS_unshare, libc::SYS_setns,
    libc::SYS_move_mount, libc::SYS_open_tree, libc::SYS_fsopen, libc::SYS_fsmount, libc::SYS_fspick,
    libc::SYS_mount_setattr, libc::SYS_name_to_handle_at, libc::SYS_open_by_handle_at, libc::SYS_fanotify_init,
    libc::SYS_bpf, libc::SYS_perf_event_open, libc::SYS_userfaultfd, libc::SYS_keyctl, libc::SYS_add_key,
    libc::SYS_request_key, libc::SYS_init_module, libc::SYS_finit_module, libc::SYS_delete_module,
    libc::SYS_kexec_load, libc::SYS_kexec_file_load, libc::SYS_reboot, libc::SYS_swapon, libc::SYS_swapoff,
    libc::SYS_acct, libc::SYS_quotactl, libc::SYS_syslog, libc::SYS_personality, libc::SYS_io_uring_setup,
    libc::SYS_io_uring_enter, libc::SYS_io_uring_register, libc::SYS_setsid, libc::SYS_setpgid,
    #[cfg(target_arch = "x86_64")]
    libc::SYS_mknod,
    #[cfg(target_arch = "x86_64")]
    libc::SYS_iopl,
    #[cfg(target_arch = "x86_64")]
    libc::SYS_ioperm,
];

/// Refused where the policy does not let the jail start processes (with
/// `clone` on a condition: [`threads_only_filters`]).
#[cfg(target_arch = "x86_64")]
const PROCESSES: &[libc::c_long] = &[libc::SYS_fork, libc::SYS_vfork];
#[cfg(not(target_arch = "x86_64"))]
const PROCESSES: &[libc::c_long] = &[];

/// How many calls the filter refuses outright, and on conditions.
pub fn refused_calls(forks: bool) -> usize {
    REFUSED.len() + 1 + if forks { 0 } else { PROCESSES.len() + 1 }
}

fn arch() -> Result<TargetArch, String> {
    std::env::consts::ARCH.try_into().map_err(|_| format!("no filter for {}", std::env::consts::ARCH))
}

fn condition(arg: u8, op: Op, value: u64) -> Result<Vec<SeccompRule>, String> {
    let c = SeccompCondition::new(arg, Len::Dword, op, value).map_err(|e| e.to_string())?;
    Ok(vec![SeccompRule::new(vec![c]).map_err(|e| e.to_string())?])
}

/// The filters that leave a process threads only: `fork`, `vfork` and a
/// `clone` without `CLONE_THREAD` refused; `clone3`, whose flags are in
/// memory a filter cannot read, ENOSYS, so that libc falls back to `clone`.
fn threads_only_filters(arch: TargetArch) -> Result<Vec<SeccompFilter>, String> {
    let mut refused: BTreeMap<i64, Vec<SeccompRule>> = PROCESSES.iter().map(|n| (*n, Vec::new())).collect();
    refused.insert(libc::SYS_clone, condition(0, Op::MaskedEq(libc::CLONE_THREAD as u64), 0)?);
    let clone3 = [(libc::SYS_clone3, Vec::new())].into();
    Ok(vec![
        SeccompFilter::new(clone3, SeccompAction::Allow, SeccompAction::Errno(libc::ENOSYS as u32), arch).map_err(|e| e.to_string())?,
        SeccompFilter::new(refused, SeccompAction::Allow, SeccompAction::Errno(libc::EPERM as u32), arch).map_err(|e| e.to_string())?,
    ])
}

fn compile(filter: SeccompFilter) -> Result<BpfProgram, String> {
    filter.try_into().map_err(|e: seccompiler::BackendError| e.to_string())
}

/// Applies the filter to this process (and, through `exec` and `fork`, to
/// everything it becomes and starts); what it refuses, in words.
pub fn apply(forks: bool) -> Result<String, String> {
    let arch = arch()?;
    let mut refused: BTreeMap<i64, Vec<SeccompRule>> = REFUSED.iter().map(|n| (*n, Vec::new())).collect();
    // The death signal the parent set stays (a program clearing it would outlive stagecheck).
    refused.insert(libc::SYS_prctl, condition(0, Op::Eq, libc::PR_SET_PDEATHSIG as u64)?);
    let mut filters =
        vec![SeccompFilter::new(refused, SeccompAction::Allow, SeccompAction::Errno(libc::EPERM as u32), arch).map_err(|e| e.to_string())?];
    if !forks {
        filters.extend(threads_only_filters(arch)?);
    }
    for filter in filters {
        apply_filter_all_threads(&compile(filter)?).map_err(|e| e.to_string())?;
    }
    let processes = if forks { "" } else { ", no process but threads" };
    Ok(format!("seccomp: {} calls refused (no socket, device node, ptrace, namespace{processes})", refused_calls(forks)))
}

/// The environment variable that hands a fork server the filters its
/// children install before they run a program (`targets/python`'s kit).
pub const THREADS_ONLY_VAR: &str = "STAGECHECK_THREADS_ONLY";

/// [`THREADS_ONLY_VAR`]'s value: each threads-only filter as a classic
/// BPF program (8-byte instructions, this machine's byte order), in hex,
/// comma-separated.
pub fn threads_only_programs() -> Result<String, String> {
    let mut out = Vec::new();
    for filter in threads_only_filters(arch()?)? {
        let program = compile(filter)?;
        let mut hex = String::with_capacity(program.len() * 16);
        for i in &program {
            let mut bytes = Vec::with_capacity(8);
            bytes.extend(i.code.to_ne_bytes());
            bytes.extend([i.jt, i.jf]);
            bytes.extend(i.k.to_ne_bytes());
            hex.extend(bytes.iter().map(|b| format!("{b:02x}")));
        }
        out.push(hex);
    }
    Ok(out.join(","))
}

//! The jail's seccomp layer: a deny-list (why not an allow-list: the
//! module doc of [`super`]). Every call below fails with `EPERM`, so a
//! program sees an `OSError` and goes on; the jail's other layers bound
//! what the allowed calls reach.

use seccompiler::{
    apply_filter_all_threads, BpfProgram, SeccompAction, SeccompCmpArgLen as Len, SeccompCmpOp as Op, SeccompCondition,
    SeccompFilter, SeccompRule, TargetArch,
};
use std::collections::BTreeMap;

/// Refused in every jail: the network (a socket of any family: a UNIX
/// socket file outside the jail is reachable by path, which Landlock does
/// not guard), device nodes, other processes' memory and descriptors,
/// namespaces and mounts, the kernel's modules, keys, BPF and `io_uring`,
/// and leaving the process group the parent kills.
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

/// Refused where the policy does not let the jail start processes.
#[cfg(target_arch = "x86_64")]
const PROCESSES: &[libc::c_long] = &[libc::SYS_fork, libc::SYS_vfork];
#[cfg(not(target_arch = "x86_64"))]
const PROCESSES: &[libc::c_long] = &[];

/// How many calls the filter refuses outright, and on conditions.
pub fn refused_calls(forks: bool) -> usize {
    REFUSED.len() + 1 + if forks { 0 } else { PROCESSES.len() + 1 }
}

/// Applies the filter to this process (and, through `exec` and `fork`, to
/// everything it becomes and starts); what it refuses, in words.
pub fn apply(forks: bool) -> Result<String, String> {
    let arch: TargetArch =
        std::env::consts::ARCH.try_into().map_err(|_| format!("no filter for {}", std::env::consts::ARCH))?;
    let cond = |arg: u8, op: Op, value: u64| SeccompCondition::new(arg, Len::Dword, op, value).map_err(|e| e.to_string());
    let rule = |c: SeccompCondition| SeccompRule::new(vec![c]).map_err(|e| e.to_string());
    let mut refused: BTreeMap<i64, Vec<SeccompRule>> = REFUSED.iter().map(|n| (*n, Vec::new())).collect();
    // The death signal the parent set stays (a program clearing it would outlive stagecheck).
    refused.insert(libc::SYS_prctl, vec![rule(cond(0, Op::Eq, libc::PR_SET_PDEATHSIG as u64)?)?]);
    let mut filters = vec![];
    if !forks {
        refused.extend(PROCESSES.iter().map(|n| (*n, Vec::new())));
        // Threads, not processes; `clone3`'s flags are in memory a filter
        // cannot read: ENOSYS, so that libc falls back to `clone`.
        let thread = libc::CLONE_THREAD as u64;
        refused.insert(libc::SYS_clone, vec![rule(cond(0, Op::MaskedEq(thread), 0)?)?]);
        filters.push(SeccompFilter::new(
            [(libc::SYS_clone3, Vec::new())].into(),
            SeccompAction::Allow,
            SeccompAction::Errno(libc::ENOSYS as u32),
            arch,
        ));
    }
    debug_assert_eq!(refused.len(), refused_calls(forks));
    filters.push(SeccompFilter::new(refused, SeccompAction::Allow, SeccompAction::Errno(libc::EPERM as u32), arch));
    for filter in filters {
        let program: BpfProgram = filter.and_then(|f| f.try_into()).map_err(|e| e.to_string())?;
        apply_filter_all_threads(&program).map_err(|e| e.to_string())?;
    }
    let processes = if forks { "" } else { ", no process but threads" };
    Ok(format!("seccomp: {} calls refused (no socket, device node, ptrace, namespace{processes})", refused_calls(forks)))
}

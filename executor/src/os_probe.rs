//! `__stagecheck_os_probe__(what, arg)`: a test hook that asks the operating
//! system, from native code inside the VM's process, for what a program that
//! escaped the VM would want: run a command, read or create a file, open a
//! TCP connection, signal another process, reserve a large address range,
//! hold many file descriptors. It returns `"ok: ..."` or `"error N: ..."`
//! (N the OS error number) and never raises, so a test reads what the OS
//! layer of the worker processes (`src/worker/confine.rs` in the root crate)
//! allowed. Exposed to programs only with [`crate::Config::debug_os_probe`]
//! (`tests/confine.rs`); never in a run of the CLI.

use rustpython_vm::{builtins::PyStrRef, VirtualMachine};
use std::io;

/// Puts the probe into builtins (before the sandbox's snapshot is taken).
pub(crate) fn install(vm: &VirtualMachine) {
    let probe = vm.new_function("__stagecheck_os_probe__", |what: PyStrRef, arg: PyStrRef| -> String {
        let arg = arg.to_string_lossy();
        match probe(&what.to_string_lossy(), &arg) {
            Ok(done) => format!("ok: {done}"),
            Err(e) => format!("error {}: {e}", e.raw_os_error().unwrap_or(0)),
        }
    });
    vm.builtins.dict().set_item("__stagecheck_os_probe__", probe.into(), vm).expect("builtins take an item");
}

fn probe(what: &str, arg: &str) -> io::Result<String> {
    match what {
        // A command (`arg` its path), run to its end.
        "exec" => std::process::Command::new(arg).status().map(|s| s.to_string()),
        // A host file's bytes.
        "read" => std::fs::read(arg).map(|bytes| String::from_utf8_lossy(&bytes).into_owned()),
        // A new file.
        "create" => std::fs::File::create(arg).map(|_| "created".into()),
        // A TCP connection to `host:port`.
        "connect" => std::net::TcpStream::connect(arg).map(|s| format!("connected from {:?}", s.local_addr().ok())),
        // Signal 0 (a permission check, no signal sent) to the parent process.
        "signal_parent" => {
            // SAFETY: getppid and kill with signal 0 have no memory effects.
            let done = unsafe { libc::kill(libc::getppid(), 0) };
            if done == 0 {
                Ok("allowed".into())
            } else {
                Err(io::Error::last_os_error())
            }
        }
        // An address range of `arg` GiB, reserved and released at once.
        "reserve" => {
            let bytes = arg.parse::<usize>().map_err(io::Error::other)? << 30;
            // SAFETY: a fresh private mapping, unmapped before returning.
            let at = unsafe {
                libc::mmap(
                    std::ptr::null_mut(),
                    bytes,
                    libc::PROT_NONE,
                    libc::MAP_PRIVATE | libc::MAP_ANONYMOUS | libc::MAP_NORESERVE,
                    -1,
                    0,
                )
            };
            if at == libc::MAP_FAILED {
                return Err(io::Error::last_os_error());
            }
            // SAFETY: the mapping made above.
            unsafe { libc::munmap(at, bytes) };
            Ok(format!("reserved {arg} GiB"))
        }
        // Up to `arg` more descriptors (duplicates of stderr), all closed again.
        "descriptors" => {
            let want = arg.parse::<usize>().map_err(io::Error::other)?;
            let mut held = Vec::new();
            let mut failed = None;
            while held.len() < want {
                // SAFETY: dup of a descriptor this process holds.
                let fd = unsafe { libc::dup(2) };
                if fd < 0 {
                    failed = Some(io::Error::last_os_error());
                    break;
                }
                held.push(fd);
            }
            for fd in &held {
                // SAFETY: descriptors opened above.
                unsafe { libc::close(*fd) };
            }
            match failed {
                Some(e) => Err(e),
                None => Ok(format!("held {want} more")),
            }
        }
        other => Err(io::Error::other(format!("unknown probe {other:?}"))),
    }
}

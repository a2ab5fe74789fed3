//! What the staging runtime needs from the sandbox that runs it, given once
//! by the sandbox when it builds an interpreter ([`set_host`]): this crate
//! knows nothing of the sandbox, its limits or its panics.
//!
//! Graph execution is native code, out of the watchdog's reach (it stops
//! the VM at bytecode boundaries only): the executor checks the run's
//! deadline itself at every loop iteration and call, and the memory budget
//! through [`Host::over_memory`]; past either it ends the run the way the
//! sandbox ends one, through [`Host::stop`], which no `except` or `finally`
//! of the program may catch.

use rustpython_vm::{
    builtins::{PyDict, PyDictRef},
    VirtualMachine,
};
use std::sync::OnceLock;

/// Why a run is stopped from inside graph execution.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Stop {
    /// Past the deadline given by `tensors::set_deadline`.
    Time,
    /// Past the sandbox's hard memory budget.
    Memory,
}

/// The sandbox's side of the contract.
pub struct Host {
    /// Whether the run is past its hard memory budget.
    pub over_memory: fn() -> bool,
    /// Ends the run (a panic the sandbox catches as a limit reached).
    pub stop: fn(Stop) -> !,
}

static HOST: OnceLock<Host> = OnceLock::new();

/// Sets the host; the first call wins (one sandbox per process).
pub fn set_host(host: Host) {
    let _ = HOST.set(host);
}

pub(crate) fn over_memory() -> bool {
    HOST.get().is_some_and(|h| (h.over_memory)())
}

pub(crate) fn stop(why: Stop) -> ! {
    match HOST.get() {
        Some(h) => (h.stop)(why),
        None => panic!("a staged run stopped ({why:?}) without a host to end it"),
    }
}

/// `sys.modules`, as the VM's importer sees it.
pub(crate) fn sys_modules(vm: &VirtualMachine) -> Option<PyDictRef> {
    vm.sys_module.get_attr("modules", vm).ok()?.downcast::<PyDict>().ok()
}

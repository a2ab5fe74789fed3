//! Size guards: refuse, with a `MemoryError`, a single allocation that would
//! blow the run's memory budget before it is made.
//!
//! Repetition (`[0] * 10**10`, `'x' * 10**11`, `b *= n`) is the one way a
//! short program asks for an unbounded block at once; RustPython would pass
//! it to the system allocator, whose refusal aborts the process. The guards
//! wrap the repeat and multiply slots of list, tuple, str, bytes and bytearray,
//! process-wide (static types are shared by all interpreters).
//! Gradual growth is caught by the allocator's budget instead ([`crate::alloc`]).
//!
//! Other ways to ask for a huge block at once (`bytes(10**11)`,
//! `'x'.ljust(10**11)`) are not guarded yet: where the system refuses, the
//! process aborts, which in a worker process (`src/worker/` of the root
//! crate) is a `crashed` run, not the end of `stagecheck`. [`install`] runs
//! before every run: the slots were seen back at their originals after an
//! interpreter was dropped.

use crate::alloc::Budget;
use rustpython_vm::{
    builtins::{PyByteArray, PyBytes, PyInt, PyList, PyStr, PyTuple, PyType},
    protocol::{PyNumberBinaryFunc, PySequence},
    Py, PyObject, PyResult, VirtualMachine,
};
use crossbeam_utils::atomic::AtomicCell;
use std::sync::OnceLock;

type SeqRepeat = fn(PySequence<'_>, isize, &VirtualMachine) -> PyResult;

/// Bytes of the block a repetition by `n` asks for, if `seq` is one of ours.
fn repeated_size(seq: &PyObject, n: i128) -> Option<u128> {
    let unit = if let Some(l) = seq.downcast_ref::<PyList>() {
        l.borrow_vec().len() * std::mem::size_of::<usize>()
    } else if let Some(t) = seq.downcast_ref::<PyTuple>() {
        t.len() * std::mem::size_of::<usize>()
    } else if let Some(s) = seq.downcast_ref::<PyStr>() {
        s.as_wtf8().len()
    } else if let Some(b) = seq.downcast_ref::<PyBytes>() {
        b.as_bytes().len()
    } else if let Some(b) = seq.downcast_ref::<PyByteArray>() {
        b.borrow_buf().len()
    } else {
        return None;
    };
    Some((unit as u128).saturating_mul(n.max(0) as u128))
}

fn check(seq: &PyObject, n: i128, vm: &VirtualMachine) -> PyResult<()> {
    match repeated_size(seq, n) {
        Some(size) if size > Budget::remaining() as u128 => Err(vm.new_memory_error(format!(
            "stagecheck: repetition would allocate {size} bytes, beyond the run's memory limit"
        ))),
        _ => Ok(()),
    }
}

/// `a * b` where one side is the sequence and the other an int.
fn check_binary(a: &PyObject, b: &PyObject, vm: &VirtualMachine) -> PyResult<()> {
    let count = |x: &PyObject| {
        x.downcast_ref::<PyInt>().map(|i| {
            use num_traits::ToPrimitive;
            i.as_bigint().to_i128().unwrap_or(i128::MAX)
        })
    };
    if let Some(n) = count(b) {
        check(a, n, vm)?;
    }
    if let Some(n) = count(a) {
        check(b, n, vm)?;
    }
    Ok(())
}

macro_rules! guard_seq_slot {
    ($ty:expr, $slot:ident) => {{
        static ORIG: OnceLock<SeqRepeat> = OnceLock::new();
        fn guarded(seq: PySequence<'_>, n: isize, vm: &VirtualMachine) -> PyResult {
            check(seq.obj, n as i128, vm)?;
            (ORIG.get().expect("guard installed"))(seq, n, vm)
        }
        ensure(&$ty.slots.as_sequence.$slot, &ORIG, guarded as SeqRepeat);
    }};
}

macro_rules! guard_num_slot {
    ($ty:expr, $slot:ident) => {{
        static ORIG: OnceLock<PyNumberBinaryFunc> = OnceLock::new();
        fn guarded(a: &PyObject, b: &PyObject, vm: &VirtualMachine) -> PyResult {
            check_binary(a, b, vm)?;
            (ORIG.get().expect("guard installed"))(a, b, vm)
        }
        ensure(&$ty.slots.as_number.$slot, &ORIG, guarded as PyNumberBinaryFunc);
    }};
}

/// Puts `guarded` in `slot`, keeping the slot's own function in `orig`.
fn ensure<F: Copy + PartialEq>(slot: &AtomicCell<Option<F>>, orig: &OnceLock<F>, guarded: F) {
    match slot.load() {
        Some(f) if f == guarded => {}
        Some(f) => {
            orig.get_or_init(|| f);
            slot.store(Some(guarded));
        }
        None => {}
    }
}

macro_rules! guard_type {
    ($ty:expr) => {{
        let ty: &Py<PyType> = $ty;
        guard_seq_slot!(ty, repeat);
        guard_seq_slot!(ty, inplace_repeat);
        guard_num_slot!(ty, multiply);
        guard_num_slot!(ty, inplace_multiply);
    }};
}

/// Installs the guards where they are missing. RustPython's static types are
/// shared by every interpreter of the process, and the slots were seen reset
/// to their originals once an interpreter had been dropped, so the executor
/// calls this before every run: twenty atomic loads.
pub fn install(vm: &VirtualMachine) {
    let t = &vm.ctx.types;
    guard_type!(t.list_type);
    guard_type!(t.tuple_type);
    guard_type!(t.str_type);
    guard_type!(t.bytes_type);
    guard_type!(t.bytearray_type);
}

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
//! The other one-shot requests are guarded the same way (each
//! aborted the process with "memory allocation failed"): `bytes(n)` (the
//! bytes type's constructor), `bytearray(n)` (its initialiser), `a << n` and
//! `a ** n` on ints (the number slots of int and bool), and the methods
//! `int.to_bytes`, `__lshift__`, `__pow__` and their reflections,
//! `ljust`/`rjust`/`center`/`zfill`/`expandtabs` of str,
//! bytes and bytearray (their entries in the type's dict wrapped by a method
//! that checks the size, then calls the original). [`install`] runs before
//! every run: the slots were seen back at their originals after an
//! interpreter was dropped.
//!
//! So are (the third red-team pass found the same aborts, or a 1 GB string
//! built in native code the watchdog cannot stop) `replace`, `join` (its
//! iterable made a list first, as CPython's `PySequence_Fast` does, so that
//! its items can be summed), `hex`, `str.translate` and `__format__` of str,
//! bytes, bytearray, int, bool, float and complex, and the `%` slot of str,
//! bytes and bytearray: their sizes are [`crate::sizes`]'.

use crate::alloc::Budget;
use crate::sizes;
use crossbeam_utils::atomic::AtomicCell;
use num_traits::{Signed, ToPrimitive};
use rustpython_vm::{
    builtins::{PyByteArray, PyBytes, PyComplex, PyFloat, PyInt, PyList, PyStr, PyTuple, PyType, PyTypeRef},
    function::{FuncArgs, PyMethodFlags},
    protocol::{PyNumberBinaryFunc, PyNumberTernaryFunc, PySequence},
    Py, PyObject, PyObjectRef, PyResult, VirtualMachine,
};
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
    check_size("repetition", repeated_size(seq, n), vm)
}

/// MemoryError if `size` bytes are beyond what the run may still allocate.
fn check_size(what: &str, size: Option<u128>, vm: &VirtualMachine) -> PyResult<()> {
    match size {
        Some(size) if size > Budget::remaining() as u128 => {
            Budget::memory_error_raised();
            Err(vm.new_memory_error(format!("stagecheck: {what} would allocate {size} bytes, beyond the run's memory limit")))
        }
        _ => Ok(()),
    }
}

/// An int's value as a count (saturating; negative: 0), if `x` is an int.
fn count_of(x: &PyObject) -> Option<u128> {
    let i = x.downcast_ref::<PyInt>()?;
    let v = i.as_bigint();
    Some(if v.is_negative() { 0 } else { v.to_u128().unwrap_or(u128::MAX) })
}

/// Bytes of `a << b` for ints.
fn shifted_size(a: &PyObject, b: &PyObject) -> Option<u128> {
    let bits = a.downcast_ref::<PyInt>()?.as_bigint().bits() as u128;
    if bits == 0 {
        return None;
    }
    Some((bits + count_of(b)?) / 8)
}

/// Bytes of `a ** b` for ints (no modulus).
fn power_size(a: &PyObject, b: &PyObject, c: &PyObject, vm: &VirtualMachine) -> Option<u128> {
    if !vm.is_none(c) {
        return None;
    }
    let bits = a.downcast_ref::<PyInt>()?.as_bigint().abs().bits() as u128;
    if bits <= 1 {
        return None; // 0, 1, -1: no growth
    }
    Some(bits.saturating_mul(count_of(b)?) / 8)
}

/// `a * b` where one side is the sequence and the other an int.
fn check_binary(a: &PyObject, b: &PyObject, vm: &VirtualMachine) -> PyResult<()> {
    let count = |x: &PyObject| x.downcast_ref::<PyInt>().map(|i| i.as_bigint().to_i128().unwrap_or(i128::MAX));
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

macro_rules! guard_int_slots {
    ($ty:expr) => {{
        let ty: &Py<PyType> = $ty;
        for_binary!(ty, lshift, |a, b, _vm| shifted_size(a, b), "a left shift");
        for_binary!(ty, inplace_lshift, |a, b, _vm| shifted_size(a, b), "a left shift");
        for_ternary!(ty, power, "a power");
        for_ternary!(ty, inplace_power, "a power");
    }};
}

macro_rules! for_binary {
    ($ty:expr, $slot:ident, $size:expr, $what:expr) => {{
        static ORIG: OnceLock<PyNumberBinaryFunc> = OnceLock::new();
        fn guarded(a: &PyObject, b: &PyObject, vm: &VirtualMachine) -> PyResult {
            let size: fn(&PyObject, &PyObject, &VirtualMachine) -> Option<u128> = $size;
            check_size($what, size(a, b, vm), vm)?;
            (ORIG.get().expect("guard installed"))(a, b, vm)
        }
        ensure(&$ty.slots.as_number.$slot, &ORIG, guarded as PyNumberBinaryFunc);
    }};
}

macro_rules! for_ternary {
    ($ty:expr, $slot:ident, $what:expr) => {{
        static ORIG: OnceLock<PyNumberTernaryFunc> = OnceLock::new();
        fn guarded(a: &PyObject, b: &PyObject, c: &PyObject, vm: &VirtualMachine) -> PyResult {
            check_size($what, power_size(a, b, c, vm), vm)?;
            (ORIG.get().expect("guard installed"))(a, b, c, vm)
        }
        ensure(&$ty.slots.as_number.$slot, &ORIG, guarded as PyNumberTernaryFunc);
    }};
}

type NewFunc = fn(PyTypeRef, FuncArgs, &VirtualMachine) -> PyResult;
type InitFunc = fn(PyObjectRef, FuncArgs, &VirtualMachine) -> PyResult<()>;

/// `bytes(n)` and `bytearray(n)`: n bytes.
fn constructed_size(args: &FuncArgs) -> Option<u128> {
    args.args.first().and_then(|a| count_of(a))
}

fn guard_constructors(vm: &VirtualMachine) {
    static NEW: OnceLock<NewFunc> = OnceLock::new();
    fn new(cls: PyTypeRef, args: FuncArgs, vm: &VirtualMachine) -> PyResult {
        check_size("bytes(n)", constructed_size(&args), vm)?;
        (NEW.get().expect("guard installed"))(cls, args, vm)
    }
    ensure(&vm.ctx.types.bytes_type.slots.new, &NEW, new as NewFunc);
    static INIT: OnceLock<InitFunc> = OnceLock::new();
    fn init(zelf: PyObjectRef, args: FuncArgs, vm: &VirtualMachine) -> PyResult<()> {
        check_size("bytearray(n)", constructed_size(&args), vm)?;
        (INIT.get().expect("guard installed"))(zelf, args, vm)
    }
    ensure(&vm.ctx.types.bytearray_type.slots.init, &INIT, init as InitFunc);
}

/// An argument by position (after self) or keyword.
fn argument<'a>(args: &'a FuncArgs, position: usize, keyword: &str) -> Option<&'a PyObjectRef> {
    args.args.get(position).or_else(|| args.kwargs.get(keyword))
}

/// Bytes a method call asks for, by the method's name (args include self).
fn method_size(name: &str, args: &FuncArgs, vm: &VirtualMachine) -> Option<u128> {
    let (a, b) = (args.args.first(), args.args.get(1));
    let none = vm.ctx.none();
    match name {
        "__lshift__" => shifted_size(a?, b?),
        "__rlshift__" => shifted_size(b?, a?),
        "__pow__" => power_size(a?, b?, args.args.get(2).unwrap_or(&none), vm),
        "__rpow__" => power_size(b?, a?, args.args.get(2).unwrap_or(&none), vm),
        "ljust" | "rjust" | "center" | "zfill" => count_of(argument(args, 1, "width")?),
        "expandtabs" => {
            let tabsize = argument(args, 1, "tabsize").map_or(Some(8), |t| count_of(t))?;
            let len = args.args.first().and_then(|s| repeated_size(s, 1)).unwrap_or(0);
            Some(len.saturating_mul(tabsize))
        }
        "to_bytes" => count_of(argument(args, 1, "length")?),
        "replace" => sizes::replaced(a?, b?, args.args.get(2)?, argument(args, 3, "count")),
        "join" => sizes::joined(a?, &b?.downcast_ref::<PyList>()?.borrow_vec(), vm),
        "translate" => sizes::translated(a?, b?, vm),
        "hex" => sizes::hexed(a?, argument(args, 1, "sep"), vm),
        "__mod__" => sizes::cformatted(a?, b?),
        "__format__" => sizes::spec_size(b?, a?.downcast_ref::<PyFloat>().is_some() || a?.downcast_ref::<PyComplex>().is_some()),
        _ => None,
    }
}

/// The methods wrapped, by type and name.
const METHODS: &[(fn(&VirtualMachine) -> &'static Py<PyType>, &str)] = &[
    (|vm| vm.ctx.types.str_type, "ljust"),
    (|vm| vm.ctx.types.str_type, "rjust"),
    (|vm| vm.ctx.types.str_type, "center"),
    (|vm| vm.ctx.types.str_type, "zfill"),
    (|vm| vm.ctx.types.str_type, "expandtabs"),
    (|vm| vm.ctx.types.bytes_type, "ljust"),
    (|vm| vm.ctx.types.bytes_type, "rjust"),
    (|vm| vm.ctx.types.bytes_type, "center"),
    (|vm| vm.ctx.types.bytes_type, "zfill"),
    (|vm| vm.ctx.types.bytes_type, "expandtabs"),
    (|vm| vm.ctx.types.bytearray_type, "ljust"),
    (|vm| vm.ctx.types.bytearray_type, "rjust"),
    (|vm| vm.ctx.types.bytearray_type, "center"),
    (|vm| vm.ctx.types.bytearray_type, "zfill"),
    (|vm| vm.ctx.types.bytearray_type, "expandtabs"),
    (|vm| vm.ctx.types.int_type, "to_bytes"),
    (|vm| vm.ctx.types.int_type, "__lshift__"),
    (|vm| vm.ctx.types.int_type, "__rlshift__"),
    (|vm| vm.ctx.types.int_type, "__pow__"),
    (|vm| vm.ctx.types.int_type, "__rpow__"),
    (|vm| vm.ctx.types.str_type, "replace"),
    (|vm| vm.ctx.types.bytes_type, "replace"),
    (|vm| vm.ctx.types.bytearray_type, "replace"),
    (|vm| vm.ctx.types.str_type, "join"),
    (|vm| vm.ctx.types.bytes_type, "join"),
    (|vm| vm.ctx.types.bytearray_type, "join"),
    (|vm| vm.ctx.types.str_type, "translate"),
    (|vm| vm.ctx.types.bytes_type, "hex"),
    (|vm| vm.ctx.types.bytearray_type, "hex"),
    (|vm| vm.ctx.types.str_type, "__mod__"),
    (|vm| vm.ctx.types.bytes_type, "__mod__"),
    (|vm| vm.ctx.types.bytearray_type, "__mod__"),
    (|vm| vm.ctx.types.str_type, "__format__"),
    (|vm| vm.ctx.types.int_type, "__format__"),
    (|vm| vm.ctx.types.bool_type, "__format__"),
    (|vm| vm.ctx.types.float_type, "__format__"),
    (|vm| vm.ctx.types.complex_type, "__format__"),
];

/// `join`'s iterable as a list (the program's iterator runs here, once, as
/// the original's would): what [`method_size`] sums.
fn listed(name: &str, mut args: FuncArgs, vm: &VirtualMachine) -> PyResult<FuncArgs> {
    if name == "join" {
        if let Some(items) = args.args.get(1).filter(|x| x.downcast_ref::<PyList>().is_none()) {
            if items.get_iter(vm).is_ok() {
                let list: Vec<PyObjectRef> = items.try_to_value(vm)?;
                args.args[1] = vm.ctx.new_list(list).into();
            }
        }
    }
    Ok(args)
}

thread_local! {
    /// Per entry of [`METHODS`]: the original method and its wrapper, leaked
    /// (static types are per thread and outlive interpreters), by address.
    static WRAPPED: std::cell::OnceCell<Vec<(usize, usize)>> = const { std::cell::OnceCell::new() };
}

/// SAFETY: `addr` is of an object leaked by `wrap_methods`: never freed.
unsafe fn leaked(addr: usize) -> &'static PyObject {
    unsafe { &*(addr as *const PyObject) }
}

fn leak(object: PyObjectRef) -> usize {
    let addr = &*object as *const PyObject as usize;
    std::mem::forget(object);
    addr
}

fn wrap_methods(vm: &VirtualMachine) {
    let wrapped = WRAPPED.with(|w| {
        w.get_or_init(|| {
            METHODS
                .iter()
                .enumerate()
                .filter_map(|(i, (ty, name))| {
                    let ty = ty(vm);
                    let original = ty.attributes.read().get(vm.ctx.intern_str(*name)).cloned()?;
                    let name: &'static str = name;
                    let wrapper = move |args: FuncArgs, vm: &VirtualMachine| -> PyResult {
                        let args = listed(name, args, vm)?;
                        check_size(name, method_size(name, &args, vm), vm)?;
                        let original = WRAPPED.with(|w| w.get().and_then(|w| w.get(i).map(|p| p.0)));
                        // SAFETY: leaked below, never freed.
                        let original = unsafe { leaked(original.expect("wrapped")) };
                        original.call(args, vm)
                    };
                    let def = vm.ctx.new_method_def(name, wrapper, PyMethodFlags::METHOD, None);
                    let method = def.build_method(ty, vm);
                    Some((leak(original), leak(method.into())))
                })
                .collect::<Vec<_>>()
        })
        .clone()
    });
    for ((ty, name), (_, ours)) in METHODS.iter().zip(wrapped) {
        let ty = ty(vm);
        let key = vm.ctx.intern_str(*name);
        let present = ty.attributes.read().get(key).is_some_and(|v| std::ptr::eq(&**v, unsafe { leaked(ours) }));
        if !present {
            // SAFETY: leaked in the first call on this thread.
            ty.attributes.write().insert(key, unsafe { leaked(ours) }.to_owned());
            ty.modified();
        }
    }
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

macro_rules! guard_format_slot {
    ($ty:expr) => {{
        let ty: &Py<PyType> = $ty;
        for_binary!(ty, remainder, |a, b, _vm| sizes::cformatted(a, b), "a %-format");
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
    guard_format_slot!(t.str_type);
    guard_format_slot!(t.bytes_type);
    guard_format_slot!(t.bytearray_type);
    guard_int_slots!(t.int_type);
    guard_int_slots!(t.bool_type);
    guard_constructors(vm);
    wrap_methods(vm);
}

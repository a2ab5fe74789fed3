//! No arbitrary bytecode: programs run only what RustPython's compiler made.
//!
//! RustPython trusts the bytecode of a code object: an instruction the
//! compiler never emits (`LIST_APPEND` on a bytearray, an out-of-range
//! operand) reads and writes out of bounds, and in a red-team attack a
//! program that could craft one obtained arbitrary memory access and ran a
//! shell command.
//! So a program cannot create, alter or swap code objects:
//! - `code.replace(...)` and `code.__replace__(...)` raise RuntimeError;
//! - the code type's constructor (`type(f.__code__)(...)`, `__new__`) raises;
//! - `f.__code__ = c` and `del f.__code__` raise: `function.__code__` is a
//!   read-only descriptor (`object.__setattr__` and the descriptor's own
//!   `__set__` go through it too). Swapping in another compiler-made code
//!   object is refused as well: RustPython does not check its free variables
//!   against the closure, and the runtime's functions are shared by every run.
//!
//! `compile()`, `exec` and `eval` stay: they produce compiler-made bytecode.
//! There is no `types` module, and `marshal` (which could load a code object
//! from bytes) is not importable (`crate::sandbox`).
//!
//! The code and function types are static, shared by every interpreter of the
//! thread; like [`crate::alloc_guards`], [`install`] runs before every run (a few
//! hash lookups) in case a dropped interpreter reset them.

use rustpython_vm::{
    builtins::{PyGetSet, PyType, PyTypeRef},
    function::{FuncArgs, PySetterValue},
    types::GetDescriptor,
    Py, PyObjectRef, PyResult, VirtualMachine,
};

/// The message of every refusal.
pub const REFUSED: &str = "code objects cannot be created or replaced in the sandbox";

fn refuse(vm: &VirtualMachine) -> rustpython_vm::builtins::PyBaseExceptionRef {
    vm.new_runtime_error(REFUSED)
}

fn refused_new(_cls: PyTypeRef, _args: FuncArgs, vm: &VirtualMachine) -> PyResult {
    Err(refuse(vm))
}

/// The objects [`install`] puts in place, made once per thread (RustPython's
/// static types are per thread without its `threading` feature) and leaked
/// (static types outlive every interpreter), by address: a getter must be
/// `Send + Sync` and Python objects are not; identity tells ours from a
/// reset original without running any code.
#[derive(Clone, Copy)]
struct Installed {
    /// The function that stands in for `replace`, `__replace__`, `__new__`.
    refused: usize,
    /// The read-only `function.__code__`.
    readonly: usize,
    /// The original `function.__code__`, which the read-only one reads through.
    original: usize,
}

thread_local! {
    static INSTALLED: std::cell::OnceCell<Installed> = const { std::cell::OnceCell::new() };
}

fn leak(object: PyObjectRef) -> usize {
    let addr = &*object as *const rustpython_vm::PyObject as usize;
    std::mem::forget(object);
    addr
}

/// SAFETY: `addr` comes from [`leak`]: the object is never freed.
unsafe fn leaked(addr: usize) -> &'static rustpython_vm::PyObject {
    unsafe { &*(addr as *const rustpython_vm::PyObject) }
}

fn address(object: &rustpython_vm::PyObject) -> usize {
    object as *const rustpython_vm::PyObject as usize
}

fn original_code(func: PyObjectRef, vm: &VirtualMachine) -> PyResult {
    let installed = INSTALLED.with(|i| *i.get().expect("installed before any program runs"));
    // SAFETY: leaked in `installed`.
    let getset = unsafe { leaked(installed.original) };
    PyGetSet::descr_get(getset.to_owned(), Some(func), None, vm)
}

fn installed(vm: &VirtualMachine) -> Installed {
    INSTALLED.with(|i| {
        *i.get_or_init(|| {
            let function_type = vm.ctx.types.function_type;
            let original = function_type.attributes.read().get(vm.ctx.intern_str("__code__")).cloned().expect("function.__code__ exists");
            let refused = vm.new_function("refused", |_args: FuncArgs, vm: &VirtualMachine| -> PyResult { Err(refuse(vm)) });
            let readonly = vm.ctx.new_static_getset(
                "__code__",
                function_type,
                |func: PyObjectRef, vm: &VirtualMachine| original_code(func, vm),
                |_func: PyObjectRef, _value: PySetterValue, vm: &VirtualMachine| -> PyResult<()> { Err(refuse(vm)) },
            );
            Installed { refused: leak(refused.into()), readonly: leak(readonly.into()), original: leak(original) }
        })
    })
}

/// Makes code objects immutable and uncreatable where that is not so yet.
pub fn install(vm: &VirtualMachine) {
    let code_type = vm.ctx.types.code_type;
    code_type.slots.new.store(Some(refused_new as _));
    let installed = installed(vm);
    for name in ["replace", "__replace__", "__new__"] {
        put(code_type, name, installed.refused, vm);
    }
    put(vm.ctx.types.function_type, "__code__", installed.readonly, vm);
}

/// Sets `ty.name` to the leaked object at `addr` unless it is there already.
fn put(ty: &Py<PyType>, name: &str, addr: usize, vm: &VirtualMachine) {
    let key = vm.ctx.intern_str(name);
    let present = ty.attributes.read().get(key).is_some_and(|v| address(v) == addr);
    if !present {
        // SAFETY: leaked in `installed`.
        let value = unsafe { leaked(addr) }.to_owned();
        ty.attributes.write().insert(key, value);
        ty.modified();
    }
}

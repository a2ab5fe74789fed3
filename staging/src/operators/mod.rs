//! `_stagecheck_ag`: the converter's runtime operators as native functions.
//!
//! Converted code calls an operator on every statement it executes (`if`,
//! `while`, `for`, `and`, ...): written in Python, each added a frame to
//! every such statement, and converted code ran 5-50x slower than the
//! original. Here each is a native function with the meaning of the Python
//! it replaces: it runs the construct now on plain values, calling the
//! bodies, thunks and operands the converter made (the converted functional
//! form still runs: bodies as closures, lazy operands, unbound reads), and
//! hands a staged value (`stagecheck.ag.dispatch.staged_types`) to the
//! staged implementation registered in `dispatch._impls`, with the
//! arguments it received.
//!
//! One file per converter, as `runtime/stagecheck/ag/` (which re-exports
//! these, so the operators keep their Python names and modules):
//! [`control_flow`] (`if_stmt`, `while_stmt`, `for_stmt`),
//! [`logical`] (`and_`, `or_`, `not_`, `compare`), [`expressions`]
//! (`if_exp`, `get_item`, `set_item`, `converted_call`), [`variables`] (`ld`).
//!
//! Which values are staged is decided by type alone (the class's MRO, as
//! `isinstance` decides for the classes registered): no user code (a
//! `__class__` property) runs to decide it. The state they read (staged
//! types, implementations, `call_check`, overloads, `Undefined`) stays in
//! the Python modules, read from their dicts at each call, so what the
//! staging runtime registers and what the sandbox restores is what they see.

mod control_flow;
mod expressions;
mod logical;
mod variables;

use rustpython_vm::builtins::{PyDictRef, PyStrInterned, PyTuple, PyType};
use rustpython_vm::function::FuncArgs;
use rustpython_vm::{AsObject, PyObject, PyObjectRef, PyResult, VirtualMachine};
use std::cell::RefCell;

/// The module's name: the runtime imports it (`stagecheck/ag/*.py`).
pub const NAME: &str = "_stagecheck_ag";

/// The runtime modules' globals the operators read.
#[derive(Clone, Copy)]
enum Global {
    /// `dispatch.staged_types`
    StagedTypes,
    /// `dispatch._impls`
    Impls,
    /// `dispatch.call_check`
    CallCheck,
    /// `call_trees._overloads`
    Overloads,
    /// `variables._UNBOUND`
    Unbound,
    /// `variables.Undefined`
    Undefined,
}

impl Global {
    const ALL: [Global; 6] = [Global::StagedTypes, Global::Impls, Global::CallCheck, Global::Overloads, Global::Unbound, Global::Undefined];

    /// (module, name)
    fn place(self) -> (&'static str, &'static str) {
        match self {
            Global::StagedTypes => ("stagecheck.ag.dispatch", "staged_types"),
            Global::Impls => ("stagecheck.ag.dispatch", "_impls"),
            Global::CallCheck => ("stagecheck.ag.dispatch", "call_check"),
            Global::Overloads => ("stagecheck.ag.call_trees", "_overloads"),
            Global::Unbound => ("stagecheck.ag.variables", "_UNBOUND"),
            Global::Undefined => ("stagecheck.ag.variables", "Undefined"),
        }
    }
}

/// Each [`Global`]'s module dict and its name, interned (its hash kept:
/// the operators look some up at every call).
struct Modules {
    places: Vec<(PyDictRef, &'static PyStrInterned)>,
}

thread_local! {
    /// This thread's interpreter's modules (one interpreter per thread at a
    /// time, as `tensors::remember_runtime` assumes).
    static MODULES: RefCell<Option<Modules>> = const { RefCell::new(None) };
}

/// Remembers the runtime's module dicts (after the runtime is installed).
pub(crate) fn remember_runtime(vm: &VirtualMachine) {
    let modules = crate::host::sys_modules(vm).expect("sys.modules is a dict");
    let dict = |name: &str| -> PyDictRef {
        let module = modules.get_item_opt(name, vm).ok().flatten().unwrap_or_else(|| panic!("{name} is installed"));
        module.dict().unwrap_or_else(|| panic!("{name} has a dict"))
    };
    let places = Global::ALL
        .iter()
        .map(|g| {
            let (module, name) = g.place();
            (dict(module), vm.ctx.intern_str(name))
        })
        .collect();
    let found = Modules { places };
    MODULES.with(|m| *m.borrow_mut() = Some(found));
}

/// A global of one of the runtime's modules (`None` if unbound).
fn global(global: Global, vm: &VirtualMachine) -> PyResult<Option<PyObjectRef>> {
    let place = MODULES.with(|m| m.borrow().as_ref().map(|m| m.places[global as usize].clone()));
    let (dict, name) = place.ok_or_else(|| vm.new_runtime_error("stagecheck.ag: the runtime is not installed"))?;
    dict.get_item_opt(name, vm)
}

/// Whether `value` is staged: an instance of one of `dispatch.staged_types`.
fn staged(value: &PyObject, vm: &VirtualMachine) -> PyResult<bool> {
    // The staged types are the runtime's Python classes (`register`): an
    // instance of a built-in type (an int, a bool, a list) is none of them,
    // and most values tested are such.
    if value.class().heaptype_ext.is_none() {
        return Ok(false);
    }
    let Some(types) = global(Global::StagedTypes, vm)? else { return Ok(false) };
    match types.downcast_ref::<PyTuple>() {
        Some(types) => Ok(types.iter().any(|t| t.downcast_ref::<PyType>().is_some_and(|t| value.fast_isinstance(t)))),
        None => value.is_instance(&types, vm),
    }
}

/// Calls the staged implementation `name` with `args`.
fn staged_impl(name: &str, args: impl Into<FuncArgs>, vm: &VirtualMachine) -> PyResult {
    let impls = global(Global::Impls, vm)?.ok_or_else(|| vm.new_runtime_error("stagecheck.ag.dispatch._impls is unbound"))?;
    impls.get_item(name, vm)?.call(args, vm)
}

/// Exactly `N` positional arguments and no keywords.
fn positional<const N: usize>(args: FuncArgs, name: &str, vm: &VirtualMachine) -> PyResult<[PyObjectRef; N]> {
    if !args.kwargs.is_empty() {
        return Err(vm.new_type_error(format!("{name}() takes no keyword arguments")));
    }
    let given = args.args.len();
    <[PyObjectRef; N]>::try_from(args.args)
        .map_err(|_| vm.new_type_error(format!("{name}() takes {N} positional arguments but {given} were given")))
}

/// The keyword `test` (False when absent) and the positional arguments.
fn with_test(mut args: FuncArgs, name: &str, vm: &VirtualMachine) -> PyResult<(Vec<PyObjectRef>, PyObjectRef)> {
    let test = args.kwargs.swap_remove("test").unwrap_or_else(|| vm.ctx.new_bool(false).into());
    if let Some(other) = args.kwargs.keys().next() {
        return Err(vm.new_type_error(format!("{name}() got an unexpected keyword argument '{other}'")));
    }
    Ok((args.args, test))
}

fn truth(value: &PyObject, vm: &VirtualMachine) -> PyResult<bool> {
    value.to_owned().try_to_bool(vm)
}

/// A native operator: positional and keyword arguments as converted code passes them.
type Operator = fn(FuncArgs, &VirtualMachine) -> PyResult;

/// Every operator of the module, by its Python name.
const OPERATORS: &[(&str, Operator)] = &[
    ("if_stmt", control_flow::if_stmt),
    ("while_stmt", control_flow::while_stmt),
    ("for_stmt", control_flow::for_stmt),
    ("and_", logical::and_),
    ("or_", logical::or_),
    ("not_", logical::not_),
    ("compare", logical::compare),
    ("if_exp", expressions::if_exp),
    ("get_item", expressions::get_item),
    ("set_item", expressions::set_item),
    ("converted_call", expressions::converted_call),
    ("ld", variables::ld),
];

#[rustpython_vm::pymodule]
pub mod _stagecheck_ag {
    use rustpython_vm::builtins::PyModule;
    use rustpython_vm::{AsObject, Py, PyResult, VirtualMachine};

    pub(crate) fn module_exec(vm: &VirtualMachine, module: &Py<PyModule>) -> PyResult<()> {
        __module_exec(vm, module);
        for &(name, operator) in super::OPERATORS {
            module.as_object().set_attr(name, vm.new_function(name, operator), vm)?;
        }
        Ok(())
    }
}

//! The pure-Python runtime that converted programs import (`import stagecheck
//! as sc`, `from stagecheck import ag as ag__`), sources in `staging/runtime/`.
//!
//! The sources are compiled into the binary ([`MODULES`]) and executed once
//! per interpreter, when the sandbox is built: all module objects first
//! (registered in `sys.modules`, each set as an attribute of its parent), then
//! every source in table order in its module's dict. The sandbox importer
//! resolves `stagecheck` and `stagecheck.*` from `sys.modules` ([`import`]);
//! nothing is read from disk. Runtime frames are compiled under
//! [`FILE_PREFIX`], a path no program has, so an error raised inside an
//! operator is reported at the program's line that called it.
//!
//! The converter's operators are `staging/runtime/stagecheck/ag/`, one
//! module per converter pass; each dispatches on `isinstance(value,
//! dispatch.staged_types)`, so staging (`staging/`) registers its types
//! and implementations there without touching the converter.

use rustpython_vm::{
    builtins::PyDictRef,
    bytecode::CodeObject,
    compiler::{self, Mode},
    scope::Scope,
    AsObject, PyObjectRef, PyResult, VirtualMachine,
};
use std::sync::OnceLock;

/// The runtime's top-level package.
pub const PACKAGE: &str = "stagecheck";

/// Prefix of the file names runtime code is compiled under; the rest is the
/// source's path under `staging/runtime/`.
pub const FILE_PREFIX: &str = "<runtime>/";

/// Every module of the runtime, as (dotted name, source), in execution order:
/// a module comes after the modules it imports. A test fails when a `.py`
/// file under `staging/runtime/` is missing here.
pub const MODULES: &[(&str, &str)] = &[
    ("stagecheck.ag.dispatch", include_str!("../runtime/stagecheck/ag/dispatch.py")),
    ("stagecheck.ag.variables", include_str!("../runtime/stagecheck/ag/variables.py")),
    ("stagecheck.ag.control_flow", include_str!("../runtime/stagecheck/ag/control_flow.py")),
    ("stagecheck.ag.conditional_expressions", include_str!("../runtime/stagecheck/ag/conditional_expressions.py")),
    ("stagecheck.ag.logical", include_str!("../runtime/stagecheck/ag/logical.py")),
    ("stagecheck.ag.exceptions", include_str!("../runtime/stagecheck/ag/exceptions.py")),
    ("stagecheck.ag.call_trees", include_str!("../runtime/stagecheck/ag/call_trees.py")),
    ("stagecheck.ag.slices", include_str!("../runtime/stagecheck/ag/slices.py")),
    ("stagecheck.ag", include_str!("../runtime/stagecheck/ag/__init__.py")),
    ("stagecheck.tensor", include_str!("../runtime/stagecheck/tensor.py")),
    ("stagecheck.gradients.rules", include_str!("../runtime/stagecheck/gradients/rules.py")),
    ("stagecheck.gradients.tape", include_str!("../runtime/stagecheck/gradients/tape.py")),
    ("stagecheck.gradients.staged", include_str!("../runtime/stagecheck/gradients/staged.py")),
    ("stagecheck.gradients.loops", include_str!("../runtime/stagecheck/gradients/loops.py")),
    ("stagecheck.gradients.check", include_str!("../runtime/stagecheck/gradients/check.py")),
    ("stagecheck.gradients", include_str!("../runtime/stagecheck/gradients/__init__.py")),
    ("stagecheck.staging.undefined", include_str!("../runtime/stagecheck/staging/undefined.py")),
    ("stagecheck.staging.structures", include_str!("../runtime/stagecheck/staging/structures.py")),
    ("stagecheck.staging.raises", include_str!("../runtime/stagecheck/staging/raises.py")),
    ("stagecheck.staging.guards", include_str!("../runtime/stagecheck/staging/guards.py")),
    ("stagecheck.staging.side_effects", include_str!("../runtime/stagecheck/staging/side_effects.py")),
    ("stagecheck.staging.lists", include_str!("../runtime/stagecheck/staging/lists.py")),
    ("stagecheck.staging.control_flow", include_str!("../runtime/stagecheck/staging/control_flow.py")),
    ("stagecheck.staging.conditional_expressions", include_str!("../runtime/stagecheck/staging/conditional_expressions.py")),
    ("stagecheck.staging.logical", include_str!("../runtime/stagecheck/staging/logical.py")),
    ("stagecheck.staging.asserts", include_str!("../runtime/stagecheck/staging/asserts.py")),
    ("stagecheck.staging.functions", include_str!("../runtime/stagecheck/staging/functions.py")),
    ("stagecheck.staging.host", include_str!("../runtime/stagecheck/staging/host.py")),
    ("stagecheck.staging.printing", include_str!("../runtime/stagecheck/staging/printing.py")),
    ("stagecheck.staging.placement", include_str!("../runtime/stagecheck/staging/placement.py")),
    ("stagecheck.staging", include_str!("../runtime/stagecheck/staging/__init__.py")),
    ("stagecheck.nn", include_str!("../runtime/stagecheck/nn.py")),
    ("stagecheck", include_str!("../runtime/stagecheck/__init__.py")),
];

/// Whether `name` has submodules in [`MODULES`] (its source is `__init__.py`).
pub fn is_package(name: &str) -> bool {
    MODULES.iter().any(|(m, _)| m.strip_prefix(name).is_some_and(|rest| rest.starts_with('.')))
}

/// The source's path under `staging/runtime/`: `stagecheck/ag/__init__.py`.
pub fn relative_path(name: &str) -> String {
    let path = name.replace('.', "/");
    if is_package(name) {
        format!("{path}/__init__.py")
    } else {
        format!("{path}.py")
    }
}

/// The file name `name`'s frames show in tracebacks, never a program's.
pub fn file_name(name: &str) -> String {
    format!("{FILE_PREFIX}{}", relative_path(name))
}

/// Whether the sandbox importer resolves `name` here: `stagecheck` or `stagecheck.*`.
pub fn owns(name: &str) -> bool {
    name.split('.').next() == Some(PACKAGE)
}

/// Creates and executes every runtime module in `vm`. Runs after the sandbox
/// importer is installed: the runtime's own imports go through it. A module
/// that fails is a bug of the runtime: panics with its Python traceback.
pub fn install(vm: &VirtualMachine) {
    let modules = crate::host::sys_modules(vm).expect("sys.modules is a dict");
    let mut dicts = Vec::with_capacity(MODULES.len());
    for (name, _) in MODULES {
        let dict = vm.ctx.new_dict();
        let module = vm.new_module(name, dict.clone(), None);
        let package = if is_package(name) {
            set(vm, &dict, "__path__", vm.ctx.new_list(Vec::new()).into());
            name
        } else {
            name.rsplit_once('.').map_or("", |(parent, _)| parent)
        };
        set(vm, &dict, "__package__", vm.ctx.new_str(package).into());
        set(vm, &dict, "__file__", vm.ctx.new_str(file_name(name)).into());
        set(vm, &dict, "__builtins__", vm.builtins.clone().into());
        modules.set_item(*name, module.into(), vm).expect("sys.modules accepts str keys");
        dicts.push(dict);
    }
    for (name, _) in MODULES {
        if let Some((parent, child)) = name.rsplit_once('.') {
            let parent = modules
                .get_item_opt(parent, vm)
                .ok()
                .flatten()
                .unwrap_or_else(|| panic!("stagecheck runtime: {name}'s package {parent} is not in MODULES"));
            let module = modules.get_item(*name, vm).expect("registered above");
            parent.set_attr(child, module, vm).expect("modules take attributes");
        }
    }
    for (((name, _), code), dict) in MODULES.iter().zip(compiled(vm)).zip(dicts) {
        let code = vm.ctx.new_code(code.clone());
        if let Err(exc) = vm.run_code_obj(code, Scope::with_builtins(None, dict, vm)) {
            let mut traceback = String::new();
            let _ = vm.write_exception(&mut traceback, &exc);
            panic!("stagecheck runtime: executing {name} raised\n{traceback}");
        }
    }
    crate::tensors::remember_runtime(vm);
    crate::operators::remember_runtime(vm);
}

/// The bytecode of [`MODULES`], compiled once per process: compiling them
/// again for every interpreter would add about a third to its creation time.
fn compiled(vm: &VirtualMachine) -> &'static [CodeObject] {
    static COMPILED: OnceLock<Vec<CodeObject>> = OnceLock::new();
    COMPILED.get_or_init(|| {
        let compile = |(name, source): &(&str, &str)| {
            compiler::compile(source, Mode::Exec, &file_name(name), vm.compile_opts())
                .unwrap_or_else(|e| panic!("stagecheck runtime: {name} does not compile: {e}"))
        };
        MODULES.iter().map(compile).collect()
    })
}

fn set(vm: &VirtualMachine, dict: &PyDictRef, key: &str, value: PyObjectRef) {
    dict.set_item(key, value, vm).expect("a fresh dict accepts str keys");
}

/// `__import__` of a runtime module, with the standard semantics: an empty
/// `fromlist` gives the top-level package (`import stagecheck.ag` binds
/// `stagecheck`), a non-empty one the named module itself.
pub fn import(vm: &VirtualMachine, name: &str, fromlist: Option<PyObjectRef>) -> PyResult {
    let lookup = |name: &str| {
        crate::host::sys_modules(vm).and_then(|modules| modules.get_item_opt(name, vm).ok().flatten()).ok_or_else(|| {
            let exc = vm.new_exception_msg(vm.ctx.exceptions.module_not_found_error.to_owned(), format!("No module named '{name}'").into());
            let _ = exc.as_object().set_attr("name", vm.ctx.new_str(name), vm);
            exc
        })
    };
    let module = lookup(name)?;
    let wants_module = match fromlist {
        Some(list) => list.try_to_bool(vm)?,
        None => false,
    };
    if wants_module {
        Ok(module)
    } else {
        lookup(PACKAGE)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::path::Path;

    /// Every `.py` file under `dir`, as a path relative to `root`.
    fn python_files(root: &Path, dir: &Path, found: &mut Vec<String>) {
        for entry in std::fs::read_dir(dir).expect("readable runtime directory") {
            let path = entry.expect("readable entry").path();
            if path.is_dir() {
                python_files(root, &path, found);
            } else if path.extension().is_some_and(|e| e == "py") {
                let relative = path.strip_prefix(root).expect("under root");
                found.push(relative.to_string_lossy().replace('\\', "/"));
            }
        }
    }

    #[test]
    fn every_runtime_file_is_in_the_table_with_its_source() {
        let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("runtime");
        let mut files = Vec::new();
        python_files(&root, &root, &mut files);
        assert!(!files.is_empty(), "no runtime sources under {}", root.display());
        let table: Vec<String> = MODULES.iter().map(|(name, _)| relative_path(name)).collect();
        for file in &files {
            assert!(table.contains(file), "staging/runtime/{file} is not in runtime::MODULES");
        }
        for (name, source) in MODULES {
            let on_disk = std::fs::read_to_string(root.join(relative_path(name))).unwrap_or_else(|e| panic!("{name}: {e}"));
            assert_eq!(*source, on_disk, "{name} includes another file than {}", relative_path(name));
        }
    }
}

//! What a run may not leave behind for the next.
//!
//! [`Snapshot`] restores after every run the dicts of builtins, `sys`,
//! `sys.modules`, every module in it and the stand-ins, and the attributes
//! of the classes those modules define (`sc.Tensor.__add__ = f`,
//! `control_flow.if_stmt` rebound). It is shallow (an object a dict holds is
//! restored as a binding, not in its own state) and rewrites only what a run
//! changed (one identity comparison, `same_objects`). After the restore,
//! [`Snapshot::leaks`] checks it (`Config::leak_check`): a fingerprint of
//! the same state taken at build by code of its own ([`Fingerprint`]) must
//! come out the same, else the run names what leaked past it
//! (`stagecheck.gradients.check._GRADCHECK rebound`), a finding of kind `leak`.
//! The fingerprint also folds the items of the lists, dicts and sets the
//! runtime's own modules hold (8 of them: `stagecheck.gradients.tape._levels`,
//! `stagecheck.ag.dispatch._impls`...), which the shallow restore does not
//! reach: a run that changes one in place (a tape entered and never left)
//! is a leak too, and its interpreter is replaced.

use crate::sandbox::sys_modules;
use rustpython_vm::{
    builtins::{PyDict, PyDictRef, PyFunction, PyList, PySet, PyStr, PyStrInterned, PyType, PyTypeRef},
    AsObject, PyObjectRef, PyRef, VirtualMachine,
};

/// The builtins and modules as the sandbox leaves them, restored after every run.
pub struct Snapshot {
    /// The dicts runs share and their items at build: builtins', `sys`'s,
    /// `sys.modules`, each module's in it and the stand-ins' of
    /// [`crate::proxies`]. Shallow: an object they hold is restored as a
    /// binding, not in its own state.
    dicts: Vec<(PyDictRef, Vec<(PyObjectRef, PyObjectRef)>)>,
    /// The classes (heap types) those modules hold and their attributes at
    /// build (`sc.Tensor.__add__ = f` must not reach the next run). Shallow
    /// too: the state of instances (a dtype object's attributes) is not kept.
    classes: Vec<(PyTypeRef, Attributes)>,
    /// The Python functions those modules and classes hold (the runtime's
    /// `if_stmt`...) and their mutable state at build: `__dict__` items,
    /// `__defaults__`, `__kwdefaults__` (`if_stmt.runs = 1` or new defaults
    /// must not reach the next run; `__code__` cannot change, `bytecode.rs`).
    functions: Vec<FunctionState>,
    /// What each of `dicts` is, for a leak's report (`builtins`, `sys`,
    /// `sys.modules`, a module's name, `stand-in N`).
    labels: Vec<String>,
    /// The state above as built, folded by [`Fingerprint`]'s own code.
    fingerprint: Fingerprint,
    /// Per function, its defaults' fold and the VM's version of the
    /// function when it was taken ([`fold_function`]).
    seen: Vec<DefaultsSeen>,
    /// The lists, dicts and sets the runtime's own modules hold
    /// (`stagecheck.gradients.tape._levels`, `stagecheck.ag.dispatch._impls`),
    /// named: the restore does not reach into them (it is shallow), so
    /// only the fingerprint says when a run changed one in place.
    containers: Vec<(String, PyObjectRef)>,
    /// The containers other modules hold (`_frozen_importlib._module_locks`),
    /// put back after every run (and folded into the fingerprint with
    /// `containers`).
    restorable: Vec<crate::held::Items>,
}

/// A function's `__defaults__`/`__kwdefaults__` fold, and the function's
/// version (`PyFunction::func_version`) when it was folded.
#[derive(Default)]
struct DefaultsSeen {
    version: std::cell::Cell<u32>,
    fold: std::cell::Cell<u64>,
}

/// An account of what a [`Snapshot`] promises to restore, kept apart from
/// it: one number per shared dict, class and function, folded from the
/// identities of every (key, value) in order (a class's attributes; a
/// function's `__defaults__`, `__kwdefaults__` and attribute dict). It
/// shares no code with the restore's comparison (`same_objects`, the
/// function versions), so a slip there cannot blind it: a run whose changes
/// the restore judged absent still changes a number. The snapshot holds
/// every object it folded, so no identity is reused while it lives.
#[derive(PartialEq, Eq, Clone)]
struct Fingerprint {
    dicts: Vec<u64>,
    classes: Vec<u64>,
    functions: Vec<u64>,
    containers: Vec<u64>,
}

impl Fingerprint {
    fn take(snapshot: &Snapshot, vm: &VirtualMachine) -> Fingerprint {
        Fingerprint {
            dicts: snapshot.dicts.iter().map(|(d, _)| fold_dict(d)).collect(),
            classes: snapshot.classes.iter().map(|(c, _)| fold_class(c)).collect(),
            functions: {
                let names = [vm.ctx.intern_str("__defaults__"), vm.ctx.intern_str("__kwdefaults__")];
                let fold = |(f, seen): (&FunctionState, &DefaultsSeen)| {
                    f.cells.ids(vm).fold(fold_function(&f.function, seen, names, vm), |h, id| mix(h, id, 2))
                };
                snapshot.functions.iter().zip(&snapshot.seen).map(fold).collect()
            },
            containers: snapshot.containers.iter().map(|(_, c)| fold_container(c)).collect(),
        }
    }
}

/// One step of the fold: the pair's identities mixed into `h` (order matters).
fn mix(h: u64, a: usize, b: usize) -> u64 {
    let x = (h ^ (a as u64).wrapping_mul(0x9E37_79B9_7F4A_7C15)).rotate_left(27) ^ (b as u64).wrapping_mul(0xC2B2_AE3D_27D4_EB4F);
    x.wrapping_mul(0x1656_67B1_9E37_79F9).rotate_left(31)
}

fn fold_dict(dict: &PyDictRef) -> u64 {
    let mut n = 0;
    let mut h = 0x5EED;
    for (k, v) in dict {
        h = mix(h, k.get_id(), v.get_id());
        n += 1;
    }
    mix(h, n, n)
}

/// A list's, dict's or set's items, by identity and in order.
fn fold_container(container: &PyObjectRef) -> u64 {
    let items: Vec<(usize, usize)> = if let Some(list) = container.downcast_ref::<PyList>() {
        list.borrow_vec().iter().map(|x| (x.get_id(), 0)).collect()
    } else if let Some(dict) = container.downcast_ref::<PyDict>() {
        dict.items_vec().iter().map(|(k, v)| (k.get_id(), v.get_id())).collect()
    } else if let Some(set) = container.downcast_ref::<PySet>() {
        set.elements().iter().map(|x| (x.get_id(), 0)).collect()
    } else {
        Vec::new()
    };
    let h = items.iter().fold(0xB0C5, |h, &(a, b)| mix(h, a, b));
    mix(h, items.len(), items.len())
}

fn fold_class(class: &PyTypeRef) -> u64 {
    let attributes = class.attributes.read();
    let h = attributes.iter().fold(0xC1A55, |h, (k, v)| mix(h, *k as *const PyStrInterned as usize, v.get_id()));
    mix(h, attributes.len(), attributes.len())
}

/// `names`: `__defaults__` and `__kwdefaults__`, interned once per fold.
/// The defaults are read again only when the VM's version of the function
/// moved since `seen` was taken: setting either invalidates it, and a
/// version is never handed out twice, so a run that touched no function
/// costs a load per function, not two attribute lookups (593 functions:
/// ~27 us a run). The version is the VM's, not the restore's record.
fn fold_function(function: &PyRef<PyFunction>, seen: &DefaultsSeen, names: [&'static PyStrInterned; 2], vm: &VirtualMachine) -> u64 {
    let object = function.as_object();
    let version = function.func_version();
    let h = if version != 0 && version == seen.version.get() {
        seen.fold.get()
    } else {
        let id = |name: &'static PyStrInterned| object.get_attr(name, vm).map_or(0, |v| v.get_id());
        let h = mix(0xF00, id(names[0]), id(names[1]));
        seen.fold.set(h);
        seen.version.set(function.get_version_for_current_state());
        h
    };
    match object.dict() {
        Some(dict) if !dict.is_empty() => mix(h, fold_dict(&dict) as usize, 1),
        _ => h,
    }
}

/// A function, its attribute dict's items and its defaults.
struct FunctionState {
    function: PyRef<PyFunction>,
    dict: Option<(PyDictRef, Vec<(PyObjectRef, PyObjectRef)>)>,
    defaults: PyObjectRef,
    kwdefaults: PyObjectRef,
    /// The function's version: setting `__defaults__`, `__kwdefaults__` (or
    /// `__code__`) resets it, so one load tells whether they changed.
    version: std::cell::Cell<u32>,
    /// Its closure's cells and their contents.
    cells: crate::held::Cells,
}

impl FunctionState {
    fn take(function: PyRef<PyFunction>, vm: &VirtualMachine) -> FunctionState {
        let dict = function.as_object().dict().map(|d| {
            let items = d.items_vec();
            (d, items)
        });
        let defaults = function.as_object().get_attr("__defaults__", vm).unwrap_or_else(|_| vm.ctx.none());
        let kwdefaults = function.as_object().get_attr("__kwdefaults__", vm).unwrap_or_else(|_| vm.ctx.none());
        let version = std::cell::Cell::new(function.get_version_for_current_state());
        let cells = crate::held::Cells::take(&function.clone().into(), vm);
        FunctionState { function, dict, defaults, kwdefaults, version, cells }
    }

    fn restore(&self, vm: &VirtualMachine) {
        self.cells.restore(vm);
        if let Some((dict, items)) = &self.dict {
            if !(items.is_empty() && dict.is_empty()) {
                restore_dict(dict, items, vm);
            }
        }
        let version = self.version.get();
        if version == 0 || self.function.func_version() != version {
            for (name, value) in [("__defaults__", &self.defaults), ("__kwdefaults__", &self.kwdefaults)] {
                let _ = self.function.as_object().set_attr(name, value.clone(), vm);
            }
            self.version.set(self.function.get_version_for_current_state());
        }
    }
}

/// A class's attributes, in order.
type Attributes = Vec<(&'static PyStrInterned, PyObjectRef)>;

impl Snapshot {
    pub(crate) fn take(vm: &VirtualMachine, stand_ins: Vec<PyDictRef>) -> Snapshot {
        let modules = sys_modules(vm).expect("sys.modules is a dict");
        let mut shared = vec![vm.builtins.dict(), vm.sys_module.dict(), modules.clone()];
        for (_, module) in modules.items_vec() {
            if let Some(dict) = module.downcast_ref::<rustpython_vm::builtins::PyModule>().and_then(|m| m.as_object().dict()) {
                if !shared.iter().any(|d| d.is(&dict)) {
                    shared.push(dict);
                }
            }
        }
        shared.extend(stand_ins);
        let mut classes: Vec<(PyTypeRef, Attributes)> = Vec::new();
        for dict in &shared {
            for (_, value) in dict.items_vec() {
                let Ok(class) = value.clone().downcast::<PyType>() else { continue };
                let heap = class.slots.flags.has_feature(rustpython_vm::types::PyTypeFlags::HEAPTYPE);
                if heap && !classes.iter().any(|(c, _)| c.is(&class)) {
                    let attributes = class.attributes.read().iter().map(|(k, v)| (*k, v.clone())).collect();
                    classes.push((class, attributes));
                }
            }
        }
        let dicts: Vec<(PyDictRef, Vec<(PyObjectRef, PyObjectRef)>)> = shared
            .into_iter()
            .map(|dict| {
                let items = dict.items_vec();
                (dict, items)
            })
            .collect();
        let mut functions: Vec<FunctionState> = Vec::new();
        let values = dicts
            .iter()
            .flat_map(|(_, items)| items.iter().map(|(_, v)| v.clone()))
            .chain(classes.iter().flat_map(|(_, attributes)| attributes.iter().map(|(_, v)| v.clone())));
        for value in values {
            let Some(function) = value.downcast_ref::<PyFunction>() else { continue };
            if !functions.iter().any(|f| f.function.is(function)) {
                functions.push(FunctionState::take(function.to_owned(), vm));
            }
        }
        let labels: Vec<String> = dicts
            .iter()
            .enumerate()
            .map(|(i, (_, items))| match i {
                0 => "builtins".to_string(),
                1 => "sys".to_string(),
                2 => "sys.modules".to_string(),
                _ => items
                    .iter()
                    .find(|(k, _)| k.downcast_ref::<PyStr>().is_some_and(|s| s.to_string_lossy() == "__name__"))
                    .map_or_else(|| format!("stand-in {}", i), |(_, name)| crate::render::str_of(name)),
            })
            .collect();
        let seen = functions.iter().map(|_| DefaultsSeen::default()).collect();
        let mut containers = Vec::new();
        let mut restorable = Vec::new();
        let mut instance_dicts = Vec::new();
        let skipped = [vm.ctx.types.module_type, vm.ctx.types.type_type, vm.ctx.types.function_type];
        let exact = [vm.ctx.types.list_type, vm.ctx.types.dict_type, vm.ctx.types.set_type];
        let container = |value: &PyObjectRef| exact.iter().any(|t| value.class().is(*t));
        for ((dict, items), label) in dicts.iter().zip(&labels).skip(3) {
            for (key, value) in items {
                let name = format!("{label}.{}", crate::render::str_of(key));
                if container(value) {
                    if !stagecheck_staging::runtime::owns(label) {
                        restorable.push(crate::held::Items::take(value.clone()));
                    }
                    containers.push((name, value.clone()));
                } else if !skipped.iter().any(|t| value.class().is(*t)) && !value.class().fast_issubclass(vm.ctx.types.type_type) {
                    // An object's own attributes (`_frozen_importlib.__spec__.x = 1`).
                    if let Some(own) = value.dict().filter(|d| !d.is(dict) && !instance_dicts.iter().any(|(o, _)| d.is(o))) {
                        instance_dicts.push((own, format!("{name}.__dict__")));
                    }
                }
            }
        }
        let mut dicts = dicts;
        let mut labels = labels;
        for (own, label) in instance_dicts {
            if dicts.iter().any(|(d, _)| d.is(&own)) {
                continue;
            }
            let items = own.items_vec();
            // And the containers it holds (`_module_locks.data`): one level, as for modules.
            for (key, value) in &items {
                if container(value) && !stagecheck_staging::runtime::owns(&label) {
                    restorable.push(crate::held::Items::take(value.clone()));
                    containers.push((format!("{label}.{}", crate::render::str_of(key)), value.clone()));
                }
            }
            dicts.push((own, items));
            labels.push(label);
        }
        let fingerprint = Fingerprint { dicts: vec![], classes: vec![], functions: vec![], containers: vec![] };
        let mut snapshot = Snapshot { dicts, classes, functions, labels, fingerprint, seen, containers, restorable };
        snapshot.fingerprint = Fingerprint::take(&snapshot, vm);
        snapshot
    }

    /// What the last restore left different from the build (empty: nothing),
    /// named (`stagecheck.gradients.check._GRADCHECK rebound`, `builtins.x added`):
    /// a leak into every later run on this worker, from a slip of the
    /// restore or a change it does not cover. The fingerprint decides; the
    /// names come from comparing with the snapshot's items.
    pub fn leaks(&self, vm: &VirtualMachine) -> Vec<String> {
        let now = Fingerprint::take(self, vm);
        if now == self.fingerprint {
            return Vec::new();
        }
        let mut leaks = Vec::new();
        for (i, ((dict, items), label)) in self.dicts.iter().zip(&self.labels).enumerate() {
            if now.dicts[i] != self.fingerprint.dicts[i] {
                leaks.extend(dict_leaks(label, &dict.items_vec(), items));
            }
        }
        for (i, (class, attributes)) in self.classes.iter().enumerate() {
            if now.classes[i] != self.fingerprint.classes[i] {
                let label = format!("{}.{}", class_module(class, vm), crate::render::str_of(&class.__qualname__(vm)));
                let now_attributes: Attributes = class.attributes.read().iter().map(|(k, v)| (*k, v.clone())).collect();
                leaks.extend(differences(
                    &now_attributes,
                    attributes,
                    |a, b| std::ptr::eq(*a, *b),
                    |k| format!("{label}.{}", k.to_string_lossy()),
                ));
            }
        }
        for (i, f) in self.functions.iter().enumerate() {
            if now.functions[i] != self.fingerprint.functions[i] {
                let object = f.function.as_object();
                let name = object.get_attr("__qualname__", vm).map(|q| crate::render::str_of(&q)).unwrap_or_default();
                let module = object.get_attr("__module__", vm).map(|q| crate::render::str_of(&q)).unwrap_or_default();
                let label = format!("{module}.{name}");
                let mut found = false;
                for (attr, then) in [("__defaults__", &f.defaults), ("__kwdefaults__", &f.kwdefaults)] {
                    if !object.get_attr(attr, vm).is_ok_and(|v| v.is(then)) {
                        leaks.push(format!("{label}.{attr} rebound"));
                        found = true;
                    }
                }
                if let Some(i) = f.cells.changed(vm) {
                    leaks.push(format!("{label}.__closure__[{i}] rebound"));
                    found = true;
                }
                if let (Some((dict, items)), false) = (&f.dict, found) {
                    leaks.extend(dict_leaks(&format!("{label}.__dict__"), &dict.items_vec(), items));
                }
            }
        }
        for (i, (label, _)) in self.containers.iter().enumerate() {
            if now.containers[i] != self.fingerprint.containers[i] {
                leaks.push(format!("{label} changed in place"));
            }
        }
        if leaks.is_empty() {
            leaks.push("the shared state's order changed".into());
        }
        leaks
    }

    /// Undoes what a run did to state shared between runs: builtins, `sys`
    /// and runtime module attributes it rebound or deleted, and modules it
    /// imported (re-imported fresh next time). A dict the run left alone is
    /// not rewritten.
    pub fn restore(&self, vm: &VirtualMachine) {
        for (dict, items) in &self.dicts {
            restore_dict(dict, items, vm);
        }
        for items in &self.restorable {
            items.restore(vm);
        }
        for function in &self.functions {
            function.restore(vm);
        }
        for (class, attributes) in &self.classes {
            let unchanged = same_objects(class.attributes.read().iter(), attributes, |(k, v), (k0, v0)| std::ptr::eq(*k, *k0) && v.is(v0));
            if !unchanged {
                let mut now = class.attributes.write();
                now.clear();
                now.extend(attributes.iter().map(|(k, v)| (*k, v.clone())));
                drop(now);
                class.modified();
            }
        }
    }
}

/// The module a class says it is of (`__module__`), or `?`.
fn class_module(class: &PyTypeRef, vm: &VirtualMachine) -> String {
    class.as_object().get_attr("__module__", vm).map(|m| crate::render::str_of(&m)).unwrap_or_else(|_| "?".into())
}

/// What differs between `now` and `then` (a dict's items), by key identity,
/// named under `label`: `label.key rebound`, `added`, `deleted` (or
/// `reordered` where the same items stand in another order).
fn dict_leaks(label: &str, now: &[(PyObjectRef, PyObjectRef)], then: &[(PyObjectRef, PyObjectRef)]) -> Vec<String> {
    let name = |k: &PyObjectRef| match k.downcast_ref::<PyStr>() {
        Some(s) if label == "sys.modules" => format!("{label}['{}']", s.to_string_lossy()),
        Some(s) => format!("{label}.{}", s.to_string_lossy()),
        None => format!("{label}[<{}>]", k.class().name()),
    };
    let mut out = differences(now, then, |a, b| a.is(b), name);
    if out.is_empty() {
        out.push(format!("{label} reordered"));
    }
    out
}

/// The keys of `then` deleted or rebound in `now` and the keys `now` added,
/// named by `name`.
fn differences<K>(
    now: &[(K, PyObjectRef)],
    then: &[(K, PyObjectRef)],
    same: impl Fn(&K, &K) -> bool,
    name: impl Fn(&K) -> String,
) -> Vec<String> {
    let mut out = Vec::new();
    for (k0, v0) in then {
        match now.iter().find(|(k, _)| same(k, k0)) {
            None => out.push(format!("{} deleted", name(k0))),
            Some((_, v)) if !v.is(v0) => out.push(format!("{} rebound", name(k0))),
            Some(_) => {}
        }
    }
    for (k, _) in now {
        if !then.iter().any(|(k0, _)| same(k0, k)) {
            out.push(format!("{} added", name(k)));
        }
    }
    out
}

/// Puts back `items` in `dict` unless it holds them already.
fn restore_dict(dict: &PyDictRef, items: &[(PyObjectRef, PyObjectRef)], vm: &VirtualMachine) {
    let now = dict.items_vec();
    if !same_objects(now.iter(), items, |(k, v), (k0, v0)| {
        k.is(k0) && (crate::planted::active_once("restore_compares_keys_only") || v.is(v0))
    }) {
        dict.clear();
        for (k, v) in items {
            let _ = dict.set_item(&**k, v.clone(), vm);
        }
    }
}

/// Whether `now` holds, in order, the very entries `then` holds (`same`
/// compares one pair by identity): a state a run left alone is not rewritten.
fn same_objects<A, B>(now: impl ExactSizeIterator<Item = A>, then: &[B], same: impl Fn(A, &B) -> bool) -> bool {
    now.len() == then.len() && now.zip(then).all(|(a, b)| same(a, b))
}

#[cfg(test)]
mod tests {
    use rustpython_vm::VirtualMachine;

    /// A sandboxed interpreter, its snapshot, and a way to run source in it
    /// without the executor's restore.
    fn in_sandbox(f: impl FnOnce(&VirtualMachine, &super::Snapshot, &dyn Fn(&str))) {
        let (interp, _, snapshot) = crate::sandbox::build(&["math".to_string()], 200, false, false);
        interp.enter(|vm| {
            let run = |source: &str| {
                let scope = vm.new_scope_with_builtins();
                vm.run_string(scope, source, "<test>".into()).map(drop).unwrap_or_else(|e| panic!("{e:?}"))
            };
            f(vm, &snapshot, &run)
        });
    }

    /// The leak check reads a function's defaults again once the VM's
    /// version of it moved (setting them invalidates it): defaults set and
    /// left are a leak, at the first look and at the next (from the cached
    /// fold, the version now fresh), until the restore, and none after it.
    #[test]
    fn defaults_left_rebound_are_a_leak_whatever_the_version_did() {
        in_sandbox(|vm, snapshot, run| {
            assert_eq!(snapshot.leaks(vm), Vec::<String>::new(), "as built");
            run("import stagecheck.gradients.check as g\ng._gradcheck_on.__defaults__ = (1,)\n");
            let leaks = snapshot.leaks(vm);
            assert!(leaks.iter().any(|l| l.ends_with("_gradcheck_on.__defaults__ rebound")), "{leaks:?}");
            assert_eq!(snapshot.leaks(vm), leaks, "a second look sees the same");
            snapshot.restore(vm);
            assert_eq!(snapshot.leaks(vm), Vec::<String>::new(), "restored");
            assert_eq!(snapshot.leaks(vm), Vec::<String>::new(), "and the cached fold agrees");
        });
    }

    /// The runtime's own containers are checked item by item: a run that
    /// changes one in place leaks past the shallow restore, and says which.
    #[test]
    fn a_runtime_container_changed_in_place_is_a_leak_the_restore_cannot_undo() {
        in_sandbox(|vm, snapshot, run| {
            run("import stagecheck.gradients.tape as g\ng._levels.append(None)\n");
            snapshot.restore(vm);
            assert_eq!(snapshot.leaks(vm), vec!["stagecheck.gradients.tape._levels changed in place".to_string()]);
            run("import stagecheck.gradients.tape as g\ng._levels.pop()\n");
            assert_eq!(snapshot.leaks(vm), Vec::<String>::new(), "as built again");
        });
    }
}

//! What shared objects hold beyond their bindings, saved at build and put
//! back after every run by [`crate::sandbox::Snapshot`]: the cells of the
//! shared functions' closures (`sc.reduce_sum`'s wrapped function is a cell:
//! `f.__closure__[0].cell_contents = max` made the next run's sums maxima)
//! and the items of the containers the import machinery and other
//! non-runtime modules hold at module level (`_frozen_importlib`'s
//! `_module_locks` and `_blocking_on`). The runtime's own containers are not
//! put back: one changed in place is the runtime's slip, a leak the
//! fingerprint reports (`snapshot.rs`).
//!
//! Cells are read and written through `cell_contents` (the VM keeps its
//! cell type private); each is compared by identity, so a run that touched
//! none costs one attribute read per cell.

use rustpython_vm::{
    builtins::{PyDict, PyList, PySet, PyTuple},
    AsObject, PyObjectRef, VirtualMachine,
};

/// A function's closure cells and what each held at build (None: empty).
pub(crate) struct Cells(Vec<(PyObjectRef, Option<PyObjectRef>)>);

impl Cells {
    pub(crate) fn take(function: &PyObjectRef, vm: &VirtualMachine) -> Cells {
        let closure = function.get_attr("__closure__", vm).ok();
        let cells = closure.as_ref().and_then(|c| c.downcast_ref::<PyTuple>()).map_or(Vec::new(), |t| t.as_slice().to_vec());
        Cells(cells.into_iter().map(|cell| (cell.clone(), contents(&cell, vm))).collect())
    }

    /// Puts back every cell a run rebound or emptied.
    pub(crate) fn restore(&self, vm: &VirtualMachine) {
        for (cell, then) in &self.0 {
            let now = contents(cell, vm);
            if !same(&now, then) {
                let _ = match then {
                    Some(v) => cell.set_attr("cell_contents", v.clone(), vm),
                    None => cell.del_attr("cell_contents", vm),
                };
            }
        }
    }

    /// The cells' contents by identity, for the fingerprint.
    pub(crate) fn ids<'a>(&'a self, vm: &'a VirtualMachine) -> impl Iterator<Item = usize> + 'a {
        self.0.iter().map(move |(cell, _)| contents(cell, vm).map_or(0, |v| v.get_id()))
    }

    /// The cell whose contents differ from the build's, by position.
    pub(crate) fn changed(&self, vm: &VirtualMachine) -> Option<usize> {
        self.0.iter().position(|(cell, then)| !same(&contents(cell, vm), then))
    }
}

fn contents(cell: &PyObjectRef, vm: &VirtualMachine) -> Option<PyObjectRef> {
    cell.get_attr("cell_contents", vm).ok()
}

fn same(a: &Option<PyObjectRef>, b: &Option<PyObjectRef>) -> bool {
    match (a, b) {
        (Some(a), Some(b)) => a.is(b),
        (None, None) => true,
        _ => false,
    }
}

/// A list's, dict's or set's items at build, put back in place.
pub(crate) struct Items {
    container: PyObjectRef,
    items: Vec<(PyObjectRef, Option<PyObjectRef>)>,
}

/// The items of `container` by identity, in order (a dict's as pairs).
pub(crate) fn items_of(container: &PyObjectRef) -> Vec<(PyObjectRef, Option<PyObjectRef>)> {
    if let Some(list) = container.downcast_ref::<PyList>() {
        list.borrow_vec().iter().map(|x| (x.clone(), None)).collect()
    } else if let Some(dict) = container.downcast_ref::<PyDict>() {
        dict.items_vec().into_iter().map(|(k, v)| (k, Some(v))).collect()
    } else if let Some(set) = container.downcast_ref::<PySet>() {
        set.elements().into_iter().map(|x| (x, None)).collect()
    } else {
        Vec::new()
    }
}

impl Items {
    pub(crate) fn take(container: PyObjectRef) -> Items {
        let items = items_of(&container);
        Items { container, items }
    }

    /// Puts the build's items back where a run changed them.
    pub(crate) fn restore(&self, vm: &VirtualMachine) {
        let now = items_of(&self.container);
        let unchanged = now.len() == self.items.len() && now.iter().zip(&self.items).all(|((k, v), (k0, v0))| k.is(k0) && same(v, v0));
        if unchanged {
            return;
        }
        if let Some(list) = self.container.downcast_ref::<PyList>() {
            *list.borrow_vec_mut() = self.items.iter().map(|(x, _)| x.clone()).collect();
        } else if let Some(dict) = self.container.downcast_ref::<PyDict>() {
            dict.clear();
            for (k, v) in &self.items {
                let _ = dict.set_item(&**k, v.clone().unwrap_or_else(|| vm.ctx.none()), vm);
            }
        } else {
            let _ = vm.call_method(&self.container, "clear", ());
            for (x, _) in &self.items {
                let _ = vm.call_method(&self.container, "add", (x.clone(),));
            }
        }
    }
}

/*
 * iterator types
 */

use super::{PyInt, PyTupleRef, PyType};
use crate::{
    AsObject, Context, Py, PyObjectRef, PyPayload, PyResult, VirtualMachine,
    class::PyClassImpl,
    function::ArgCallable,
    object::{Traverse, TraverseFn},
    protocol::PyIterReturn,
    types::{IterNext, Iterable, SelfIter},
};
use rustpython_common::lock::{PyMutex, PyRwLock};

/// Marks status of iterator.
#[derive(Debug, Clone)]
pub enum IterStatus<T> {
    /// Iterator hasn't raised StopIteration.
    Active(T),
    /// Iterator has raised StopIteration.
    Exhausted,
}

unsafe impl<T: Traverse> Traverse for IterStatus<T> {
    fn traverse(&self, tracer_fn: &mut TraverseFn<'_>) {
        match self {
            Self::Active(r) => r.traverse(tracer_fn),
            Self::Exhausted => (),
        }
    }
}

#[derive(Debug)]
pub struct PositionIterInternal<T> {
    pub status: IterStatus<T>,
    pub position: usize,
}

unsafe impl<T: Traverse> Traverse for PositionIterInternal<T> {
    fn traverse(&self, tracer_fn: &mut TraverseFn<'_>) {
        self.status.traverse(tracer_fn)
    }
}

impl<T> PositionIterInternal<T> {
    pub const fn new(obj: T, position: usize) -> Self {
        Self {
            status: IterStatus::Active(obj),
            position,
        }
    }

    pub fn set_state<F>(&mut self, state: PyObjectRef, f: F, vm: &VirtualMachine) -> PyResult<()>
    where
        F: FnOnce(&T, usize) -> usize,
    {
        if let IterStatus::Active(obj) = &self.status {
            if let Some(i) = state.downcast_ref::<PyInt>() {
                let i = i.try_to_primitive(vm).unwrap_or(0);
                self.position = f(obj, i);
                Ok(())
            } else {
                Err(vm.new_type_error("an integer is required."))
            }
        } else {
            Ok(())
        }
    }

    /// Build a pickle-compatible reduce tuple.
    ///
    /// `func` must be resolved **before** acquiring any lock that guards this
    /// `PositionIterInternal`, so that the builtins lookup cannot trigger
    /// reentrant iterator access and deadlock.
    pub fn reduce<F, E>(
        &self,
        func: PyObjectRef,
        active: F,
        empty: E,
        vm: &VirtualMachine,
    ) -> PyTupleRef
    where
        F: FnOnce(&T) -> PyObjectRef,
        E: FnOnce(&VirtualMachine) -> PyObjectRef,
    {
        if let IterStatus::Active(obj) = &self.status {
            vm.new_tuple((func, (active(obj),), self.position))
        } else {
            vm.new_tuple((func, (empty(vm),)))
        }
    }

    fn _next<F, OP>(&mut self, f: F, op: OP) -> PyResult<PyIterReturn>
    where
        F: FnOnce(&T, usize) -> PyResult<PyIterReturn>,
        OP: FnOnce(&mut Self),
    {
        if let IterStatus::Active(obj) = &self.status {
            let ret = f(obj, self.position);
            if let Ok(PyIterReturn::Return(_)) = ret {
                op(self);
            } else {
                self.status = IterStatus::Exhausted;
            }
            ret
        } else {
            Ok(PyIterReturn::StopIteration(None))
        }
    }

    pub fn next<F>(&mut self, f: F) -> PyResult<PyIterReturn>
    where
        F: FnOnce(&T, usize) -> PyResult<PyIterReturn>,
    {
        self._next(f, |zelf| zelf.position += 1)
    }

    pub fn rev_next<F>(&mut self, f: F) -> PyResult<PyIterReturn>
    where
        F: FnOnce(&T, usize) -> PyResult<PyIterReturn>,
    {
        self._next(f, |zelf| {
            if zelf.position == 0 {
                zelf.status = IterStatus::Exhausted;
            } else {
                zelf.position -= 1;
            }
        })
    }

    pub fn length_hint<F>(&self, f: F) -> usize
    where
        F: FnOnce(&T) -> usize,
    {
        if let IterStatus::Active(obj) = &self.status {
            f(obj).saturating_sub(self.position)
        } else {
            0
        }
    }

    pub fn rev_length_hint<F>(&self, f: F) -> usize
    where
        F: FnOnce(&T) -> usize,
    {
        if let IterStatus::Active(obj) = &self.status
            && self.position <= f(obj)
        {
            return self.position + 1;
        }
        0
    }
}

/// stagecheck patch: the object and position of an active iterator, taken
/// out of its lock, so that what runs Python (`__getitem__`, `__len__`) runs
/// without it: a call reaching the same iterator again would lock it twice.
pub(crate) fn active(
    internal: &PyMutex<PositionIterInternal<PyObjectRef>>,
) -> Option<(PyObjectRef, usize)> {
    let internal = internal.lock();
    match &internal.status {
        IterStatus::Active(obj) => Some((obj.clone(), internal.position)),
        IterStatus::Exhausted => None,
    }
}

/// stagecheck patch: marks the iterator exhausted, dropping its object after
/// the lock is released (a `__del__` may reach the iterator again).
pub(crate) fn exhaust(internal: &PyMutex<PositionIterInternal<PyObjectRef>>) {
    let old = core::mem::replace(&mut internal.lock().status, IterStatus::Exhausted);
    drop(old);
}

pub fn builtins_iter(vm: &VirtualMachine) -> PyObjectRef {
    vm.builtins.get_attr("iter", vm).unwrap()
}

pub fn builtins_reversed(vm: &VirtualMachine) -> PyObjectRef {
    vm.builtins.get_attr("reversed", vm).unwrap()
}

// stagecheck patch: a program may delete `builtins.iter` (`del
// __builtins__.iter`): the builtin iterators' `__reduce__` raise
// AttributeError, as CPython's `_PyEval_GetBuiltin` does, where
// `builtins_iter` unwrapped and panicked (kept for rustpython-stdlib's array).
pub fn try_builtins_iter(vm: &VirtualMachine) -> PyResult {
    builtin("iter", vm)
}

pub fn try_builtins_reversed(vm: &VirtualMachine) -> PyResult {
    builtin("reversed", vm)
}

fn builtin(name: &'static str, vm: &VirtualMachine) -> PyResult {
    vm.builtins.get_attr(name, vm).map_err(|e| {
        if e.fast_isinstance(vm.ctx.exceptions.attribute_error) {
            vm.new_attribute_error(name.to_owned())
        } else {
            e
        }
    })
}

#[pyclass(module = false, name = "iterator", traverse)]
#[derive(Debug)]
pub struct PySequenceIterator {
    internal: PyMutex<PositionIterInternal<PyObjectRef>>,
}

impl PyPayload for PySequenceIterator {
    #[inline]
    fn class(ctx: &Context) -> &'static Py<PyType> {
        ctx.types.iter_type
    }
}

#[pyclass(with(IterNext, Iterable))]
impl PySequenceIterator {
    pub fn new(obj: PyObjectRef, vm: &VirtualMachine) -> PyResult<Self> {
        let _seq = obj.try_sequence(vm)?;
        Ok(Self {
            internal: PyMutex::new(PositionIterInternal::new(obj, 0)),
        })
    }

    // stagecheck patch: `__len__` runs without the lock (see `active`), an
    // error propagates, and the hint is what is left (CPython's `iter_len`).
    #[pymethod]
    fn __length_hint__(&self, vm: &VirtualMachine) -> PyResult<PyObjectRef> {
        let Some((obj, _)) = active(&self.internal) else {
            return Ok(PyInt::from(0).into_pyobject(vm));
        };
        match obj.sequence_unchecked().length_opt(vm) {
            Some(len) => {
                // The position after `__len__`, which may have moved it.
                let position = self.internal.lock().position;
                Ok(PyInt::from(len?.saturating_sub(position)).into_pyobject(vm))
            }
            None => Ok(vm.ctx.not_implemented()),
        }
    }

    #[pymethod]
    fn __reduce__(&self, vm: &VirtualMachine) -> PyResult<PyTupleRef> {
        let func = try_builtins_iter(vm)?;
        Ok(self.internal.lock().reduce(
            func,
            |x| x.clone(),
            |vm| vm.ctx.empty_tuple.clone().into(),
            vm,
        ))
    }

    #[pymethod]
    fn __setstate__(&self, state: PyObjectRef, vm: &VirtualMachine) -> PyResult<()> {
        self.internal.lock().set_state(state, |_, pos| pos, vm)
    }
}

impl SelfIter for PySequenceIterator {}
impl IterNext for PySequenceIterator {
    fn next(zelf: &Py<Self>, vm: &VirtualMachine) -> PyResult<PyIterReturn> {
        // stagecheck patch: CPython's `iter_iternext`. `__getitem__` runs
        // without the lock (a `__getitem__` calling `next()` on this iterator
        // panicked, "tried to lock a CellMutex twice"); the index moves on
        // from wherever a reentrant call left it; only IndexError or
        // StopIteration exhausts the iterator, another error leaves it as it was.
        let Some((obj, pos)) = active(&zelf.internal) else {
            return Ok(PyIterReturn::StopIteration(None));
        };
        let ret = PyIterReturn::from_getitem_result(obj.sequence_unchecked().get_item(pos as isize, vm), vm);
        match &ret {
            Ok(PyIterReturn::Return(_)) => zelf.internal.lock().position += 1,
            Ok(PyIterReturn::StopIteration(_)) => exhaust(&zelf.internal),
            Err(_) => {}
        }
        ret
    }
}

#[pyclass(module = false, name = "callable_iterator", traverse)]
#[derive(Debug)]
pub struct PyCallableIterator {
    sentinel: PyObjectRef,
    status: PyRwLock<IterStatus<ArgCallable>>,
}

impl PyPayload for PyCallableIterator {
    #[inline]
    fn class(ctx: &Context) -> &'static Py<PyType> {
        ctx.types.callable_iterator
    }
}

#[pyclass(with(IterNext, Iterable))]
impl PyCallableIterator {
    pub const fn new(callable: ArgCallable, sentinel: PyObjectRef) -> Self {
        Self {
            sentinel,
            status: PyRwLock::new(IterStatus::Active(callable)),
        }
    }

    #[pymethod]
    fn __reduce__(&self, vm: &VirtualMachine) -> PyResult<PyTupleRef> {
        let func = try_builtins_iter(vm)?;
        let status = self.status.read();
        if let IterStatus::Active(callable) = &*status {
            let callable_obj: PyObjectRef = callable.clone().into();
            Ok(vm.new_tuple((func, (callable_obj, self.sentinel.clone()))))
        } else {
            Ok(vm.new_tuple((func, (vm.ctx.empty_tuple.clone(),))))
        }
    }
}

impl SelfIter for PyCallableIterator {}
impl IterNext for PyCallableIterator {
    fn next(zelf: &Py<Self>, vm: &VirtualMachine) -> PyResult<PyIterReturn> {
        // Clone the callable and release the lock before invoking,
        // so that reentrant next() calls don't deadlock.
        let callable = {
            let status = zelf.status.read();
            match &*status {
                IterStatus::Active(callable) => callable.clone(),
                IterStatus::Exhausted => return Ok(PyIterReturn::StopIteration(None)),
            }
        };

        // stagecheck patch: CPython's `calliter_iternext`. No lock is held
        // while Python runs (the callable, then the sentinel's `__eq__`): a
        // sentinel whose `__eq__` calls `next()` on this iterator took the
        // upgradable read twice and panicked ("tried to upgrade lock a
        // CellRwLock twice"). The comparison is `sentinel == result`, sentinel
        // first, as CPython's; a StopIteration from the callable ends the
        // iteration instead of propagating.
        let ret = match callable.invoke((), vm) {
            Ok(ret) => ret,
            Err(e) if e.fast_isinstance(vm.ctx.exceptions.stop_iteration) => {
                *zelf.status.write() = IterStatus::Exhausted;
                return Ok(PyIterReturn::StopIteration(None));
            }
            Err(e) => return Err(e),
        };

        // A reentrant call may have exhausted the iterator meanwhile.
        if !matches!(&*zelf.status.read(), IterStatus::Active(_)) {
            return Ok(PyIterReturn::StopIteration(None));
        }

        if vm.identical_or_equal(&zelf.sentinel, &ret)? {
            *zelf.status.write() = IterStatus::Exhausted;
            Ok(PyIterReturn::StopIteration(None))
        } else {
            Ok(PyIterReturn::Return(ret))
        }
    }
}

pub fn init(context: &'static Context) {
    PySequenceIterator::extend_class(context, context.types.iter_type);
    PyCallableIterator::extend_class(context, context.types.callable_iterator);
}

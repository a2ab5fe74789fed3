"""Python lists in staged control flow (AutoGraph's list conversion, seed 001
§5: `l = []` before a staged loop, `l.append(t)` / `l.pop()` / `len(l)` in
it, `sc.stack(l)` after it), lowered to list ops of the graph (graph/src/
list.rs: a list is a tensor whose leading dimension, its length, is known
only at execution).

The converter leaves `l.append(t)` a call of the Python list's method and
`l` out of the loop's state (the name is not rebound), so the runtime finds
the list itself: a staged if or loop is a *scope* (`_Scope`) over the
closure cells of its user functions (body, test, branches). When tracing
one of them calls `append` or `pop` of a Python list held by such a cell
(`side_effects.check_side_effect`), the trace stops (`_Promote`), and the
outermost scope holding the cell rebinds the cell to a `StagedList` and
traces again: the staged list is then a loop variable (an output of the
cond) of every scope whose functions close over it, kept in the object
(`StagedList._h`) and threaded through the graph by the scope. An empty
list's element dtype and shape are those of its first append: a second
restart types it. So a list is traced at most three times per scope.

Only a list nothing else can see is lowered (else the original's list
would change and the staged one would not): held by one cell only (its
reference count is a fresh cell's, `_private`) that no guard of the trace
reads (the trace's `_Guards` walked every cell and list the trace reaches
from outside: `roots` and `seen`). A list of the caller, a global or an
attribute stays refused as before ("list.append inside staged control flow
mutates a Python object once when traced").

A `StagedList` keeps Python's answers or refuses: `append` of a tensor of
another dtype or shape, or of a Python value, is a StagingError at its
line; `pop()` at execution of an empty list raises `IndexError: pop from
empty list` (the graph's error); `len(l)` (converted code's `len`, an
overload) is an int32 tensor; `sc.stack(l)` is a tensor whose length is
known at execution (its `.shape` refuses); anything else (indexing,
iteration, `print(l)`, truth, returning it from the staged function) is a
StagingError. Eager and unstaged runs never see one: their lists are
Python's.

Known gap: `len(l)` is a tensor where the original has an int (as in
AutoGraph, so that `while len(l) < n` stages); where the program prints it
or mixes it with Python floats, the staged run differs from the original
(`print(len(l))` prints `sc.Tensor(2, ...)`, not `2`): the oracle reports
it as a divergence, not a refusal.
"""

import _stagecheck_tensor as _n
from stagecheck import tensor as _t
from stagecheck.ag import call_trees as _call_trees
from stagecheck.staging.structures import Tensor, _signature
from stagecheck.staging.guards import _Guards

StagingError = _t.StagingError

_USE = 'a list built in staged control flow supports append(tensor), pop(), len() and sc.stack() only (it is a list op of the graph)'


class _Promote(BaseException):
    """Stops the trace of a scope's function: `cell`'s list must become a
    staged list (typed `sig`, when known) of `scope`, and the scope traced
    again. A BaseException, so no deferral (raises.py) takes it."""

    def __init__(self, scope, cell, sig):
        BaseException.__init__(self)
        self.scope, self.cell, self.sig = scope, cell, sig


class StagedList:
    """A Python list lowered to a list of the graph (see the module doc)."""
    __slots__ = ('_h', '_sig', '_name')
    _sc_staged_list = True

    def __init__(self, name, sig, handle):
        self._name, self._sig, self._h = name, sig, handle

    def _list_sig(self):
        return (self._sig[0], (None,) + tuple(self._sig[1]))

    def _check_carried(self, what):
        scope = _Scope.innermost()
        if scope is not None and self not in scope.lists:
            raise StagingError("%s of list '%s' inside a staged %s that does not carry it (it is reached "
                               "other than through a variable of the function)" % (what, self._name, scope.kind))

    def append(self, x):
        if not isinstance(x, Tensor):
            if isinstance(x, _t.Variable):
                x = x.read_value()
            else:
                raise StagingError("list '%s' is built in staged control flow: only tensors can be appended to it, "
                                   "not %s" % (self._name, type(x).__name__))
        sig = _signature(x)
        if self._sig is None:
            owner = _Scope.owner_of(self)
            if owner is not None:
                raise _Promote(owner[0], owner[1], sig)
            self._sig = sig
            self._h = _n.apply('ListNew', {'dtype': sig[0], 'shape': list(sig[1])}, [])
        elif sig != self._sig:
            raise StagingError("list '%s' holds %s %s tensors in staged control flow (the dtype and shape of its "
                               "first element); appending %s %s" % ((self._name,) + tuple(self._sig) + sig))
        self._check_carried('append')
        self._h = _n.apply('ListPush', None, [self._h, x._h])

    def pop(self, i=-1):
        if type(i) is not int or i != -1:
            raise StagingError("list '%s' is built in staged control flow: pop() takes its last element only, "
                               "not element %r" % (self._name, i))
        if self._sig is None:
            if _Scope.owner_of(self) is not None:
                raise StagingError("pop() of list '%s' in staged control flow before any append: the dtype and "
                                   "shape of its elements are not known" % self._name)
            # No append reached this point: the list is empty here at every execution.
            raise IndexError('pop from empty list')
        self._check_carried('pop')
        x = Tensor(_n.apply('ListLast', None, [self._h]))
        self._h = _n.apply('ListDrop', None, [self._h])
        return x

    def _len(self):
        if self._sig is None:
            if _Scope.owner_of(self) is not None:
                raise StagingError("len() of list '%s' in staged control flow before any append" % self._name)
            return 0
        return Tensor(_n.apply('ListLen', None, [self._h]))

    def _sc_stack(self, axis):
        if self._sig is None:
            if _Scope.owner_of(self) is not None:
                raise StagingError("sc.stack() of list '%s' in staged control flow before any append" % self._name)
            return _t.stack([], axis)
        return Tensor(_n.apply('ListStack', {'axis': axis.__index__()}, [self._h]))

    def _refuse(self, *args, **kwargs):
        raise StagingError("list '%s': %s" % (self._name, _USE))

    __len__ = __iter__ = __getitem__ = __setitem__ = __delitem__ = __contains__ = __bool__ = _refuse
    __repr__ = __str__ = __add__ = __iadd__ = __mul__ = __reversed__ = _refuse
    extend = insert = remove = clear = copy = index = count = sort = reverse = _refuse


def staged_len(x):
    """Converted code's `len` (an overload of the builtin)."""
    if type(x) is StagedList:
        return x._len()
    return _builtin_len(x)


_builtin_len = len
_call_trees.overload(len, staged_len)


def _fresh_cell_refs():
    """The reference count `_private` sees for a list held by one cell."""
    held = []

    def reader():
        return held
    return _refs(reader.__closure__[0])


def _refs(cell):
    return _n.refcount(cell.cell_contents)


class _Scope:
    """A staged if or loop being traced: the cells its functions close
    over, the staged lists they hold (carried), the Python lists they hold
    that could be promoted."""
    # Scopes being traced, outermost first (all traces).
    stack = []
    _one_cell = None

    def __init__(self, kind, fns):
        self.kind = kind
        self.collector = _Guards.stack[-1] if _Guards.stack else None
        self.cells = cells = []   # (name, cell)
        # Cells holding a Python list held by nothing else (counted when
        # nothing here holds it: `_fresh_cell_refs` counts the same way).
        self.single = single = set()
        self.lists = lists = []
        one = _one_cell_refs()
        seen = set()
        # One pass over the cells, each read once: a trace makes a scope
        # for every staged if and loop, over every cell of its bodies.
        for f in fns:
            if f is None or not f.__closure__:
                continue
            for name, cell in zip(f.__code__.co_freevars, f.__closure__):
                k = id(cell)
                if k in seen:
                    continue
                seen.add(k)
                cells.append((name, cell))
                try:
                    v = cell.cell_contents
                except ValueError:
                    continue
                t = type(v)
                if t is list:
                    v = None
                    if _refs(cell) == one:
                        single.add(k)
                elif t is StagedList and v._sig is not None and v not in lists:
                    lists.append(v)

    @classmethod
    def _of_trace(cls):
        """The scopes of the innermost trace, outermost first."""
        collector = _Guards.stack[-1] if _Guards.stack else None
        return [s for s in cls.stack if s.collector is collector]

    @classmethod
    def innermost(cls):
        scopes = cls._of_trace()
        return scopes[-1] if scopes else None

    @classmethod
    def owner_of(cls, value):
        """(the outermost scope of this trace holding `value` in a cell, the cell), or None."""
        for scope in cls._of_trace():
            for _, cell in scope.cells:
                if _contents(cell) is value:
                    return scope, cell
        return None

    def name_of(self, cell):
        return next(n for n, c in self.cells if c is cell)

    def promote(self, p):
        """Rebinds `p.cell` to a staged list (see `_Promote`), in the
        builder the scope's node goes to."""
        name = self.name_of(p.cell)
        v = p.cell.cell_contents
        if type(v) is StagedList:
            v._sig = p.sig
            v._h = _n.apply('ListNew', {'dtype': p.sig[0], 'shape': list(p.sig[1])}, [])
            return
        sig = None
        handle = None
        for x in v:
            if isinstance(x, _t.Variable):
                x = x.read_value()
            if not isinstance(x, Tensor):
                raise StagingError("list '%s' is changed in staged control flow: its elements must be tensors, "
                                   "it holds a %s" % (name, type(x).__name__))
            if sig is None:
                sig = _signature(x)
                handle = _n.apply('ListNew', {'dtype': sig[0], 'shape': list(sig[1])}, [])
            elif _signature(x) != sig:
                raise StagingError("list '%s' is changed in staged control flow: its elements must share one dtype "
                                   "and shape, it holds %s %s and %s %s" % ((name,) + tuple(sig) + _signature(x)))
            handle = _n.apply('ListPush', None, [handle, x._h])
        p.cell.cell_contents = StagedList(name, sig, handle)


def _contents(cell):
    try:
        return cell.cell_contents
    except ValueError:
        return None


def _one_cell_refs():
    if _Scope._one_cell is None:
        _Scope._one_cell = _fresh_cell_refs()
    return _Scope._one_cell


def _private(scope, cell, lst):
    """Whether `lst`, in `cell`, is seen by nothing but the cell (module doc)."""
    if id(cell) not in scope.single:
        return False
    c = scope.collector
    return c is None or (id(cell) not in c.roots and id(lst) not in c.seen)


def on_mutation(owner, method):
    """A list's `append`/`pop` called while tracing staged control flow
    (`check_side_effect`): raises `_Promote` for a list a scope can lower,
    a StagingError naming why for one it cannot; returns for a list no
    scope holds (the caller refuses as for any mutation)."""
    for scope in _Scope._of_trace():
        for name, cell in scope.cells:
            if _contents(cell) is owner:
                if not _private(scope, cell, owner):
                    raise StagingError("list.%s inside staged control flow on list '%s', which is also held elsewhere "
                                       "(an argument, a global, an attribute, another variable): it would change "
                                       "once when traced" % (method, name))
                raise _Promote(scope, cell, None)


def scoped(kind, fns, attempt):
    """Runs `attempt(lists)`, the trace of one staged if or loop carrying
    the staged lists `lists`, again after each promotion of a list of this
    scope (`_Promote`), with the lists' handles as they were before."""
    while True:
        scope = _Scope(kind, fns)
        saved = [(lst, lst._h) for lst in scope.lists]
        _Scope.stack.append(scope)
        try:
            return attempt(scope.lists)
        except _Promote as p:
            if p.scope is not scope:
                raise
            for lst, h in saved:
                lst._h = h
            scope.promote(p)
        finally:
            _Scope.stack.pop()


def list_tensors(lists):
    return [Tensor(lst._h) for lst in lists]


def set_lists(lists, tensors):
    for lst, t in zip(lists, tensors):
        lst._h = t._h

"""The eager tape: `sc.GradientTape`, the ops it records (`_record`, while
`tensor._apply` is `_taped_apply`) and the walk backwards (`_backprop`) with
the rules of `rules.py`; the trace levels recording happens at (`_levels`).
The package's doc says how staged code is recorded."""

import _stagecheck_tensor as _n
from stagecheck import tensor as _t
from stagecheck.gradients import rules as _rules
from stagecheck.gradients import check as _check

Tensor = _t.Tensor
Variable = _t.Variable
StagingError = _t.StagingError
_FLOATS = ('float32', 'float64')


class _Level:
    """The recorders of one trace level."""

    def __init__(self, parent, sub=None):
        self.parent = parent
        self.recorders = [] if sub is None else [sub]

    def connected(self, key):
        return any(r.active and r.connected(key) for r in self.recorders)


_levels = [_Level(None)]


def _refresh():
    """Points tensor.py's `_apply` at `_taped_apply` while a tape records at
    the current level, else back at the native apply (no frame per op)."""
    top = _levels[-1]
    if any(r.active for r in top.recorders):
        _t._tape_hook, _t._apply = _record, _taped_apply
    else:
        _t._tape_hook, _t._apply = None, _n.apply


class _Pushing:
    """A trace level (`self._level()`) pushed for a `with` block and popped
    after it, `tensor._apply` following (`_refresh`)."""

    def __enter__(self):
        _levels.append(self._level())
        _refresh()
        return self

    def __exit__(self, *exc):
        _levels.pop()
        _refresh()
        return False


def _taped_apply(op, attrs, handles):
    h = _n.apply(op, attrs, handles)
    hook = _t._tape_hook
    if hook is not None:
        hook(op, attrs, handles, h)
    return h


def recording():
    """Whether ops are being recorded at the current level."""
    return _t._tape_hook is not None


def on_path(handles):
    """Whether a float tensor among `handles` is on a recording tape's path
    at the current level (its gradient would be taken through what uses it)."""
    return _t._tape_hook is not None and any(_n.dtype(h) in _FLOATS and _levels[-1].connected(id(h)) for h in handles)


def _var_key(var):
    return ('v', id(var))


class _Recorder:
    # Slots, no __dict__: a tape in a program's globals renders as
    # `<GradientTape>` (its record holds ids, which differ between runs).
    __slots__ = ('entries', 'produced', 'kept')
    active = True
    watch_accessed_variables = True
    watched_vars = ()

    def __init__(self):
        self.entries = []
        self.produced = set()
        self.kept = []

    def connected(self, key):
        return key in self.produced


class _Op:
    __slots__ = ('op', 'attrs', 'ins', 'out', 'in_keys', 'sigs')

    def __init__(self, op, attrs, ins, out, in_keys):
        self.op, self.attrs, self.ins, self.out, self.in_keys = op, attrs, ins, out, in_keys
        self.sigs = [_n.signature(h) for h in ins]

    def needs(self):
        rule = _rules.RULES.get(self.op)
        if rule is None:
            return []
        return (list(self.ins) if rule[0] else []) + ([self.out] if rule[1] else [])

    def backward(self, acc, val, tr):
        g, r = _take(acc, id(self.out))
        if g is None:
            return
        rule = _rules.RULES.get(self.op)
        if rule is None:
            raise LookupError('No gradient defined for operation %s' % self.op)
        xs = [val(h) for h in self.ins] if rule[0] else [None] * len(self.ins)
        y = val(self.out) if rule[1] else None
        # By name from the module (a planted slip redefines a rule there).
        fn = _rules.__dict__.get(rule[2].__name__, rule[2])
        grads = fn(self.attrs if self.attrs is not None else {}, xs, y, self.sigs, g)
        for k, gi in zip(self.in_keys, grads):
            if k is not None and gi is not None:
                acc.setdefault(tr(k), []).append((gi, r))


class _VarRead:
    __slots__ = ('var', 'h')

    def __init__(self, var, h):
        self.var, self.h = var, h

    def needs(self):
        return []

    def backward(self, acc, val, tr):
        g, r = _take(acc, id(self.h))
        if g is not None:
            acc.setdefault(tr(_var_key(self.var)), []).append((g, r))


def _or(a, b):
    """Reached flags: None is always; else a bool scalar tensor."""
    return None if a is None or b is None else (a | b)


def _and(a, b):
    return b if a is None else a if b is None else (a & b)


def _fold(items):
    g, r = items[0]
    for gi, ri in items[1:]:
        g = g + gi
        r = _or(r, ri)
    return g, r


def _take(acc, key):
    """The gradient of `key`, its contributions summed left to right (kept
    folded: a source may be an intermediate value)."""
    items = acc.get(key)
    if not items:
        return None, None
    g, r = _fold(items)
    acc[key] = [(g, r)]
    return g, r


def _backprop(entries, acc, val, tr):
    for e in reversed(entries):
        e.backward(acc, val, tr)


def _plain_val(h):
    return Tensor(h)


def _same_key(k):
    return k


def _record(op, attrs, ins, out):
    if _n.dtype(out) not in _FLOATS:
        return
    if op.startswith('List'):
        for r in _levels[-1].recorders:
            if r.active and any(_n.dtype(h) in _FLOATS and r.connected(id(h)) for h in ins):
                raise StagingError('a gradient through a list in staged control flow is not staged yet')
        return
    for r in _levels[-1].recorders:
        if not r.active:
            continue
        keys = [id(h) if _n.dtype(h) in _FLOATS and r.connected(id(h)) else None for h in ins]
        if any(k is not None for k in keys):
            r.entries.append(_Op(op, attrs, list(ins), out, keys))
            r.produced.add(id(out))


def _record_variable(var, t):
    """A read of `var` (its value `t`) while a tape records: watched."""
    if t.dtype.name not in _FLOATS:
        return
    h = t._h
    for r in _levels[-1].recorders:
        if not r.watch_accessed_variables and id(var) not in r.watched_vars:
            continue
        if r.active and id(h) not in r.produced:
            r.entries.append(_VarRead(var, h))
            r.produced.add(id(h))


_t._record_variable = _record_variable


def stop_gradient(t):
    """`tf.stop_gradient`: the same value, unconnected to any tape."""
    if isinstance(t, Variable):
        t = t.read_value()
    t = _t.convert_to_tensor(t)
    return Tensor(_n.apply('Identity', None, [t._h]))


def _flatten(x, out):
    if isinstance(x, (list, tuple)):
        return (type(x), [_flatten(i, out) for i in x])
    if isinstance(x, dict):
        return (dict, [(k, _flatten(v, out)) for k, v in x.items()])
    out.append(x)
    return None


def _rebuild(shape, it):
    if shape is None:
        return next(it)
    kind, items = shape
    if kind is dict:
        return {k: _rebuild(v, it) for k, v in items}
    values = [_rebuild(i, it) for i in items]
    return tuple(values) if kind is tuple else values


class GradientTape(_Recorder):
    """`tf.GradientTape(persistent=False, watch_accessed_variables=True)`."""

    __slots__ = ('persistent', 'watch_accessed_variables', 'active', '_used', '_level', 'watched_vars')

    def __init__(self, persistent=False, watch_accessed_variables=True):
        _Recorder.__init__(self)
        self.persistent = persistent
        self.watch_accessed_variables = watch_accessed_variables
        self.active = False
        self._used = False
        self._level = None
        self.watched_vars = set()

    def __enter__(self):
        self._level = _levels[-1]
        self._level.recorders.append(self)
        self.active = True
        _refresh()
        return self

    def __exit__(self, *exc):
        self.active = False
        if self in self._level.recorders:
            self._level.recorders.remove(self)
        _refresh()
        return False

    def watch(self, tensor):
        items = []
        _flatten(tensor, items)
        for t in items:
            if isinstance(t, Variable):
                self.watched_vars.add(id(t))
                self.kept.append(t)
                continue
            if not isinstance(t, Tensor):
                raise ValueError('Passed in object of type %s, not tf.Tensor or tf.Variable' % type(t).__name__)
            if t.dtype.name in _FLOATS:
                self.produced.add(id(t._h))
                self.kept.append(t)

    def gradient(self, target, sources, output_gradients=None, unconnected_gradients='none'):
        if self._used:
            raise RuntimeError('A non-persistent GradientTape can only be used to compute one set of gradients (or jacobians)')
        if not self.persistent:
            self._used = True
        if unconnected_gradients not in ('none', 'zero'):
            raise ValueError("unconnected_gradients must be 'none' or 'zero', not %r" % (unconnected_gradients,))
        flat = []
        structure = _flatten(sources, flat)
        targets = []
        _flatten(target, targets)
        seeds = []
        if output_gradients is not None:
            _flatten(output_gradients, seeds)
        was = self.active
        self.active = False
        _refresh()
        try:
            acc = {}
            seeded = []
            for i, t in enumerate(targets):
                if isinstance(t, Variable):
                    t = t._value
                if not isinstance(t, Tensor) or t.dtype.name not in _FLOATS:
                    continue
                s = seeds[i] if i < len(seeds) and seeds[i] is not None else _t.ones(list(t.shape), t.dtype)
                s = _t.convert_to_tensor(s)
                seeded.append((t, s))
                acc.setdefault(id(t._h), []).append((s, None))
            _backprop(self.entries, acc, _plain_val, _same_key)
            results = []
            for s in flat:
                if isinstance(s, Variable):
                    key, dt, shape = _var_key(s), s.dtype, s.shape
                elif isinstance(s, Tensor):
                    key, dt, shape = id(s._h), s.dtype, s.shape
                else:
                    raise ValueError('a gradient source must be a tensor or an sc.Variable, not %s' % type(s).__name__)
                g, r = _take(acc, key) if dt.name in _FLOATS else (None, None)
                if r is not None:
                    if unconnected_gradients != 'zero':
                        raise StagingError('a gradient reached through one branch of a staged if only: None or not '
                                           'depends on the branch taken (pass unconnected_gradients=\'zero\')')
                    g = _t.where(r, g, _t.zeros(list(shape), dt))
                if g is None and unconnected_gradients == 'zero' and dt.name in _FLOATS:
                    g = _t.zeros(list(shape), dt)
                results.append(g)
            if _check._GRADCHECK and _n.trace_current() is None:
                _check._gradcheck(self.entries, [t for t, _ in seeded], [s for _, s in seeded], flat, results)
        finally:
            self.active = was and self in self._level.recorders
            _refresh()
        return _rebuild(structure, iter(results))

"""Automatic differentiation: `sc.GradientTape` (TF Eager's tape, seed 002
§4.2), eager and staged.

A tape records, in order, every op whose output is a float and one of whose
inputs it is connected to (watched with `watch`, read from an `sc.Variable`,
or computed from such): `tensor._apply`, rebound to `_taped_apply`, calls `_record` while a tape is
active (`tensor._tape_hook`). `gradient` walks the record backwards with the
rules of `rules.py`, written with `sc` ops, so under a trace (a tape inside
`@sc.function`) the backward pass is graph nodes of the same function.

Recording happens at one trace level at a time (`_levels`: the eager level
at the bottom, then one per staged part traced while a tape records):
- a staged call (`functions.py: Function._taped_call`) is traced with a
  sub-tape watching its float parameters; the graph function also returns
  the values its backward pass needs (TF Eager's "forward" function), and
  the caller's tapes record one call entry, whose backward is the sub-tape's
  walked where the gradient is taken (eagerly, or inline in the trace).
- a staged `if` (`control_flow.py: if_stmt`) traces each branch with a
  sub-tape, twice: once to learn what each branch's backward needs, then
  with those values as extra cond outputs (the other branch gives zeros:
  cond_v2's intermediates). Its backward is a cond over the branches'
  backward passes; the gradient already accumulated for each value the
  branches captured goes in, so sums associate as in the eager walk.
- a staged while/for loop (`control_flow.py: _loop`) is traced twice too:
  the second time its body pushes, at every iteration, the values its
  backward pass needs on lists carried as extra loop variables (while_v2's
  accumulators, graph/src/list.rs), and counts its iterations; the
  backward is a loop running as many times, popping them, carrying the
  gradients of the loop variables and of the values the body captured.
  Not yet: a loop inside a loop (its accumulators would be lists of lists),
  a list of the program's grown in the loop, a cond inside the loop reaching
  a value through one branch only (StagingError refusals).

A value that is both a loop's initial value and captured by its body gets
two sums (the capture's, then the loop variable's) added after the loop,
where the eager walk interleaves them in the first iteration: bit-equal on
100 random cases (corpus/staged/gradients/006 holds 12), but not argued
equal in general.

Exactness: the eager and staged walks accumulate each value's gradient
contributions in the same order, left to right (a call's backward adds its
contributions one by one to the caller's lists), so CPU results are equal.

None where a source is unconnected. Under a staged `if`, a gradient reached
through one branch only is None or not depending on the branch taken: a
graph cannot give None, so that is a StagingError unless the program asks
`unconnected_gradients='zero'` (then zeros where the branch did not reach)."""

import _stagecheck_tensor as _n
from stagecheck import tensor as _t
from stagecheck.gradients import rules as _rules

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
            if _GRADCHECK and _n.trace_current() is None:
                _gradcheck(self.entries, [t for t, _ in seeded], [s for _, s in seeded], flat, results)
        finally:
            self.active = was and self in self._level.recorders
            _refresh()
        return _rebuild(structure, iter(results))


# ---------------------------------------------------------------- staged parts

class _SubTape(_Recorder):
    """Records the ops of one staged part (a call's function, a branch)."""

    __slots__ = ('parent', 'isolated', 'params')

    def __init__(self, parent, isolated):
        _Recorder.__init__(self)
        self.parent = parent
        self.isolated = isolated
        self.params = set()

    def connected(self, key):
        if key in self.produced:
            return True
        return not self.isolated and self.parent.connected(key)


class _Part:
    """A staged part traced while a tape records: pushes its level."""

    def __init__(self, isolated):
        self.parent = _levels[-1]
        self.sub = _SubTape(self.parent, isolated)

    def __enter__(self):
        _levels.append(_Level(self.parent, self.sub))
        _refresh()
        return self

    def __exit__(self, *exc):
        _levels.pop()
        _refresh()
        return False

    def needed(self):
        """The values of this part that its backward pass needs, in order:
        its own (exported: the part's extra outputs); those of enclosing
        traces go to `self.outer_needed` (the enclosing part exports them)."""
        b = _n.trace_builder()
        seen, out = set(), []
        self.outer_needed = []
        for e in self.sub.entries:
            for h in e.needs():
                if id(h) in seen or id(h) in self.sub.params:
                    continue
                seen.add(id(h))
                owner = _n.builder(h)
                if owner == b:
                    out.append(h)
                elif owner is not None:
                    self.outer_needed.append(h)
        return out



def _record_on(level, entry):
    """A staged part's entry (call, cond, loop), on the tapes of the level
    it was traced from; its float outputs become connected there."""
    # The values kept for its backward pass too: a gradient's own ops read
    # them (a gradient of a gradient).
    kept = getattr(entry, 'saved', None) or [h for b in getattr(entry, 'branches', ()) for h in b[3]]
    for r in level.recorders:
        if r.active:
            r.entries.append(entry)
            for h in list(entry.outs) + list(kept):
                if _n.dtype(h) in _FLOATS:
                    r.produced.add(id(h))


def refuse_part(label):
    """A staged part (a loop's, a conditional expression's) traced while a
    tape records, whose gradient is not built: it must record nothing."""
    return _Refused(label)


class _Refused(_Part):
    def __init__(self, label):
        _Part.__init__(self, False)
        self.label = label

    def check(self, result):
        """After the trace: refused if a float value it gives is connected
        (a bool, an and/or's test, needs no gradient)."""
        values = []
        _flatten(result, values)
        if any(isinstance(v, Tensor) and id(v._h) in self.sub.produced for v in values):
            raise StagingError('a gradient through a staged %s is not staged yet (use an if statement)' % self.label)


class FunctionRecording(_Part):
    """A staged call under a tape (`functions.py: _taped_call`)."""

    def __init__(self):
        _Part.__init__(self, True)
        self.params_h = []
        self.outs_h = []
        self.saved_h = []

    def params(self, symbolic):
        self.params_h = [t._h for t in symbolic]
        for h in self.params_h:
            self.sub.params.add(id(h))
            if _n.dtype(h) in _FLOATS:
                self.sub.produced.add(id(h))

    def extras(self, outputs):
        self.outs_h = [t._h for t in outputs]
        if not self.sub.entries:
            self.saved_h = []
        else:
            self.saved_h = self.needed()
        return self.saved_h

    def finish(self, arg_handles, results):
        """The call's results (the function's own); records the call entry."""
        n = len(results) - len(self.saved_h)
        user, saved = results[:n], results[n:]
        if self.sub.entries:
            entry = _Call(self.sub.entries, self.params_h, [t._h for t in arg_handles], self.outs_h,
                          [t._h for t in user], self.saved_h, [t._h for t in saved])
            _record_on(self.parent, entry)
        return user


class _Call:
    def __init__(self, entries, params, args, inner_outs, outs, inner_saved, saved):
        self.entries = entries
        self.params, self.args = params, args
        self.inner_outs, self.outs = inner_outs, outs
        self.inner_saved, self.saved = inner_saved, saved

    def needs(self):
        return list(self.args) + list(self.saved)

    def backward(self, acc, val, tr):
        seeds = [_take(acc, id(o)) for o in self.outs]
        # The values kept for the backward pass have gradients too where a
        # gradient's own ops were recorded (a gradient of a gradient).
        saved_seeds = [_take(acc, id(o)) for o in self.saved]
        if all(g is None for g, _ in seeds + saved_seeds):
            return
        to_arg = {id(p): id(a) for p, a in zip(self.params, self.args)}
        values = {id(p): a for p, a in zip(self.params, self.args)}
        values.update({id(i): o for i, o in zip(self.inner_saved, self.saved)})

        def tr_in(k):
            return tr(to_arg.get(k, k)) if not isinstance(k, tuple) else tr(k)

        def val_in(h):
            o = values.get(id(h))
            return val(o) if o is not None else Tensor(h)

        for inner, (g, r) in zip(list(self.inner_outs) + list(self.inner_saved), seeds + saved_seeds):
            if g is not None:
                acc.setdefault(tr_in(id(inner)), []).append((g, r))
        _backprop(self.entries, acc, val_in, tr_in)


class CondRecording:
    """A staged `if` under a tape (`control_flow.py: if_stmt`): two passes."""

    def __init__(self, pred):
        self.pred = pred
        self.final = False
        self.parts = [None, None]
        self.found = [[], []]      # pass 1: each branch's needed values' signatures
        self.outs = [[], []]       # each branch's outputs (inner handles)
        self.saved = [[], []]      # each branch's needed values (pass 2)
        self.parent = _levels[-1]

    def part(self, k):
        self.parts[k] = _Part(False)
        return self.parts[k]

    def extras(self, k, outputs):
        part = self.parts[k]
        self.outs[k] = [t._h for t in outputs]
        own = part.needed()
        if not self.final:
            self.found[k] = [_n.signature(h) for h in own]
            return []
        if [_n.signature(h) for h in own] != self.found[k]:
            raise StagingError('internal error: a staged branch traced twice under a gradient tape kept other values')
        self.saved[k] = own
        zeros = [_t.zeros(list(s), _t._dtypes[d]) for d, s in self.found[1 - k]]
        return [Tensor(h) for h in own] + zeros if k == 0 else zeros + [Tensor(h) for h in own]

    def discovered(self):
        """After the first pass: whether a second is needed."""
        self.final = True
        return any(p is not None and p.sub.entries for p in self.parts)

    def split(self, outs):
        n = len(self.found[0]) + len(self.found[1])
        if n == 0 or not self.final:
            return outs
        user, extra = outs[:len(outs) - n], outs[len(outs) - n:]
        t_saved = extra[:len(self.found[0])]
        e_saved = extra[len(self.found[0]):]
        entry = _Cond(self.pred._h, [t._h for t in user], self.parts[0].outer_needed + self.parts[1].outer_needed,
                      [(self.parts[0].sub.entries, self.outs[0], self.saved[0], [t._h for t in t_saved]),
                       (self.parts[1].sub.entries, self.outs[1], self.saved[1], [t._h for t in e_saved])],
                      self.parent)
        _record_on(self.parent, entry)
        return user


def _outer_refs(branches, parent):
    """The keys a cond's branches reach outside themselves, in order: values
    they captured (or passed through) that are connected, and Variables."""
    refs, seen = [], set()
    for entries, inner_outs, _, _ in branches:
        inner = set()
        for e in entries:
            if isinstance(e, _Op):
                inner.add(id(e.out))
            elif isinstance(e, _VarRead):
                inner.add(id(e.h))
            else:
                inner.update(id(o) for o in e.outs)
        cands = []
        for e in entries:
            if isinstance(e, _Op):
                cands.extend((k, h) for k, h in zip(e.in_keys, e.ins) if k is not None)
            elif isinstance(e, _VarRead):
                cands.append((_var_key(e.var), e.var))
            elif isinstance(e, _Call):
                cands.extend((id(a), a) for a in e.args)
            elif isinstance(e, _While):
                cands.extend((id(a), a) for a in e.inits)
                cands.extend((k, h) for k, h in e.refs)
            else:
                cands.extend((k, h) for k, h in e.refs)
        cands.extend((id(h), h) for h in inner_outs)
        for k, h in cands:
            if k in seen or k in inner:
                continue
            if isinstance(k, tuple) or (_n.dtype(h) in _FLOATS and parent.connected(k)):
                seen.add(k)
                refs.append((k, h))
    return refs


def _sig_of(h):
    if isinstance(h, Variable):
        return h.dtype.name, tuple(h.shape)
    return _n.dtype(h), tuple(_n.shape(h))


class _Cond:
    def __init__(self, pred, outs, outer_needed, branches, parent):
        self.pred, self.outs, self.branches = pred, outs, branches
        self.outer_needed = outer_needed
        self.refs = _outer_refs(branches, parent)

    def needs(self):
        return [self.pred] + [h for b in self.branches for h in b[3]] + self.outer_needed

    def backward(self, acc, val, tr):
        seeds = [_take(acc, id(o)) for o in self.outs]
        saved_seeds = [[_take(acc, id(h)) for h in b[3]] for b in self.branches]
        if all(g is None for g, _ in seeds + saved_seeds[0] + saved_seeds[1]) or not self.refs:
            return
        before = {k: _take(acc, tr(k)) for k, _ in self.refs if acc.get(tr(k))}
        reached = [{}, {}]

        def branch(b, k):
            entries, inner_outs, inner_saved, saved = self.branches[b]
            values = {id(i): o for i, o in zip(inner_saved, saved)}

            def val_in(h):
                o = values.get(id(h))
                return val(o) if o is not None else val(h)

            local = {key: [gr] for key, gr in before.items()}
            for inner, (g, r) in zip(list(inner_outs) + list(inner_saved), seeds + saved_seeds[b]):
                if g is not None:
                    local.setdefault(id(inner), []).append((g, r))
            _backprop(entries, local, val_in, _same_key)
            out = []
            for key, h in self.refs:
                g, r = _take(local, key)
                if g is None:
                    d, s = _sig_of(h)
                    out += [_t.zeros(list(s), _t._dtypes[d]) * -1.0, _t.constant(False)]
                    reached[b][key] = 'no'
                else:
                    out += [g, _t.constant(True) if r is None else r]
                    reached[b][key] = 'always' if r is None else 'maybe'
            return out

        pred = val(self.pred)
        if _n.trace_current() is None:
            # The gradient taken eagerly of a staged call's cond: the branch
            # its (eager) condition took.
            taken = 0 if bool(pred) else 1
            outs = branch(taken, None)
            reached[1 - taken] = reached[taken]
        else:
            _no_higher_order('if')
            with _Paused():
                fns = [_trace_part('grad_if_true', lambda: branch(0, None)),
                       _trace_part('grad_if_false', lambda: branch(1, None))]
                outs = [Tensor(h) for h in _n.cond(pred._h, fns[0], fns[1])]
        for i, (key, _) in enumerate(self.refs):
            g, r = outs[2 * i], outs[2 * i + 1]
            always = reached[0][key] == 'always' and reached[1][key] == 'always'
            acc[tr(key)] = [(g, None if always else r)]


def _no_higher_order(what):
    """A backward cond or loop built while another tape records (a gradient
    of a gradient): its branches' and body's ops would have to be recorded
    as a cond or loop of their own, which is not staged yet."""
    if recording():
        raise StagingError('a gradient of a gradient through a staged %s is not staged yet' % what)


class _Paused:
    """No recording while a backward cond's branches are traced."""

    def __enter__(self):
        _levels.append(_Level(_levels[-1]))
        _refresh()
        return self

    def __exit__(self, *exc):
        _levels.pop()
        _refresh()
        return False


def _trace_part(label, fn):
    return _trace_loop_part(label, [], lambda _: fn())


# ---------------------------------------------------------------- staged loops

_INT32 = 'int32'


def _list_new(sig):
    return _n.apply('ListNew', {'dtype': sig[0], 'shape': list(sig[1])}, [])


def _list_sig(sig):
    return (sig[0], (None,) + tuple(sig[1]))


class LoopRecording:
    """A staged while/for loop under a tape (`control_flow.py: _loop`), as
    TF's while_v2: the body's values its backward pass needs are pushed, at
    each iteration, on lists carried as extra loop variables (accumulators),
    with an iteration counter; the backward is a loop running as many times,
    popping them. Two passes, like a cond's: the first learns what the body
    needs, the second carries it."""

    def __init__(self, kind):
        self.kind = kind
        self.parent = _levels[-1]
        self.final = False
        self.found = []        # the needed values' signatures (pass 1)
        self.body = None
        self.placeholders = []
        self.inner_outs = []
        self.saved = []

    def cond_part(self):
        # The condition gives a bool: nothing of it is differentiated.
        return _Paused()

    def body_part(self):
        self.body = _Part(False)
        return self.body

    def enter_body(self, tensors):
        """The body's loop variables at the iteration's start: connected."""
        self.placeholders = [t._h for t in tensors]
        for h in self.placeholders:
            if _n.dtype(h) in _FLOATS:
                self.body.sub.produced.add(id(h))

    def extra_params(self):
        if not self.final:
            return []
        return [('int32', ())] + [_list_sig(sig) for sig in self.found]

    def initial(self):
        if not self.final:
            return []
        return [_t.constant(0)._h] + [_list_new(sig) for sig in self.found]

    def body_extras(self, extra_in, outs):
        self.inner_outs = [t._h for t in outs]
        if any(isinstance(e, _While) for e in self.body.sub.entries):
            # Its accumulators would have to be kept per outer iteration (lists of lists).
            raise StagingError('a gradient through a staged loop inside a staged loop is not staged yet')
        own = self.body.needed()
        sigs = [_n.signature(h) for h in own]
        if not self.final:
            self.found = sigs
            return []
        if sigs != self.found:
            raise StagingError('internal error: a staged loop body traced twice under a gradient tape kept other values')
        self.saved = own
        counter = Tensor(_n.apply('Add', None, [extra_in[0]._h, _t.constant(1)._h]))
        pushed = [Tensor(_n.apply('ListPush', None, [lst._h, h])) for lst, h in zip(extra_in[1:], own)]
        return [counter] + pushed

    def discovered(self):
        self.final = True
        return self.body is not None and bool(self.body.sub.entries)

    def split(self, outs, inits):
        if not self.final:
            return outs
        n = 1 + len(self.found)
        user, extra = outs[:len(outs) - n], outs[len(outs) - n:]
        entry = _While(self.kind, [h for h in inits], [t._h for t in user], self.placeholders[:len(user)],
                       self.inner_outs[:len(user)], self.body.sub.entries, self.saved, extra[0]._h,
                       [t._h for t in extra[1:]], self.body.outer_needed, self.parent)
        _record_on(self.parent, entry)
        return user


class _While:
    def __init__(self, kind, inits, outs, placeholders, inner_outs, entries, inner_saved, count, accs, outer_needed,
                 parent):
        self.kind = kind
        self.inits, self.outs = inits, outs
        self.placeholders, self.inner_outs = placeholders, inner_outs
        self.entries, self.inner_saved = entries, inner_saved
        self.count, self.accs = count, accs
        self.outer_needed = outer_needed
        self.refs = _outer_refs([(entries, inner_outs, None, None)], parent)
        self.refs = [(k, h) for k, h in self.refs if k not in set(id(p) for p in placeholders)]
        self.sigs = [_n.signature(h) for h in inner_saved]

    def needs(self):
        return list(self.inits) + [self.count] + list(self.accs) + list(self.outer_needed)

    def backward(self, acc, val, tr):
        floats = [i for i, h in enumerate(self.outs) if _n.dtype(h) in _FLOATS]
        seeds = {i: _take(acc, id(self.outs[i])) for i in floats}
        seeds = {i: gr for i, gr in seeds.items() if gr[0] is not None}
        if not seeds:
            return
        # Partial seeds (reached through one branch of a staged if after the
        # loop): what the loop gives is reached where any seed was.
        r_any = None
        if all(r is not None for _, r in seeds.values()):
            for _, r in seeds.values():
                r_any = _or(r_any, r) if r_any is not None else r
        before, r_before = {}, {}
        for k, _ in self.refs:
            if acc.get(tr(k)):
                before[k], r_before[k] = _take(acc, tr(k))

        def neg_zeros(sig):
            return _t.zeros(list(sig[1]), _t._dtypes[sig[0]]) * -1.0

        out_sigs = [_sig_of(self.outs[i]) for i in floats]
        ref_sigs = [_sig_of(h) for _, h in self.refs]
        acc_sigs = [_list_sig(sig) for sig in self.sigs]
        init = ([val(self.count)] + [seeds[i][0] if i in seeds else neg_zeros(sig) for i, sig in zip(floats, out_sigs)]
                + [before[k] if k in before else neg_zeros(sig) for (k, _), sig in zip(self.refs, ref_sigs)]
                + [val(h) for h in self.accs])
        touched = {'vars': set(), 'refs': set()}
        nf, nr = len(floats), len(self.refs)

        def step(vs):
            k, carried, refs, lists = vs[0], vs[1:1 + nf], vs[1 + nf:1 + nf + nr], vs[1 + nf + nr:]
            values, popped = {}, []
            for h, lst in zip(self.inner_saved, lists):
                values[id(h)] = Tensor(_n.apply('ListLast', None, [lst._h]))
                popped.append(Tensor(_n.apply('ListDrop', None, [lst._h])))

            def val_in(h):
                v = values.get(id(h))
                return v if v is not None else val(h)

            local = {}
            for (key, _), g in zip(self.refs, refs):
                local[key] = [(g, None)]
            for i, g in zip(floats, carried):
                local.setdefault(id(self.inner_outs[i]), []).append((g, None))
            _backprop(self.entries, local, val_in, _same_key)
            new_carried = []
            for j, (i, sig) in enumerate(zip(floats, out_sigs)):
                items = local.get(id(self.placeholders[i]))
                if items:
                    # More than the carried gradient passed through unchanged.
                    if not (len(items) == 1 and items[0][0] is carried[j] and id(self.placeholders[i]) == id(self.inner_outs[i])):
                        touched['vars'].add(j)
                    g, r = _fold(items)
                else:
                    g, r = neg_zeros(sig), None
                if r is not None:
                    raise StagingError('a gradient through a staged if reaching a value through one branch only, '
                                       'inside a staged %s loop, is not staged yet' % self.kind)
                new_carried.append(g)
            new_refs = []
            for j, (key, _) in enumerate(self.refs):
                items = local[key]
                if not (len(items) == 1 and items[0][0] is refs[j]):
                    touched['refs'].add(j)
                g, r = _fold(items)
                if r is not None:
                    raise StagingError('a gradient through a staged if reaching a value through one branch only, '
                                       'inside a staged %s loop, is not staged yet' % self.kind)
                new_refs.append(g)
            return [k - 1] + new_carried + new_refs + popped

        if _n.trace_current() is None:
            # Popped values are not connected to a recording tape.
            _no_higher_order(self.kind + ' loop')
            vs = init
            while bool(vs[0] > 0):
                vs = step(vs)
            outs = vs
        else:
            _no_higher_order(self.kind + ' loop')
            sigs = [('int32', ())] + out_sigs + ref_sigs + acc_sigs
            with _Paused():
                cond_id = _trace_loop_part('grad_%s_cond' % self.kind, sigs, lambda vs: [vs[0] > 0])
                body_id = _trace_loop_part('grad_%s_body' % self.kind, sigs, step)
                outs = [Tensor(h) for h in _n.while_loop(cond_id, body_id, [t._h for t in init])]
        if _n.trace_current() is None:
            # Eagerly: whether the loop ran is known now.
            ran = None if bool(val(self.count) > 0) else False
        else:
            ran = val(self.count) > 0
        through = False if ran is False else _and(ran, r_any)
        # The captured values' sums first (they started from the gradient
        # accumulated before the loop), then the initial values' (a value may
        # be both: `y = x` before a loop whose body reads x).
        for j, (key, _) in enumerate(self.refs):
            g = outs[1 + nf + j]
            if key in before:
                r = r_before[key]
                if r is not None and j in touched['refs'] and through is not False:
                    r = None if through is None else _or(r, through)
                acc[tr(key)] = [(g, r)]
            elif j in touched['refs'] and through is not False:
                acc.setdefault(tr(key), []).append((g, through))
        for j, i in enumerate(floats):
            g = outs[1 + j]
            if i in seeds:
                r = r_any
            elif j in touched['vars']:
                r = through
            else:
                continue
            if r is False:
                continue
            acc.setdefault(tr(id(self.inits[i])), []).append((g, r))


def _trace_loop_part(label, sigs, fn):
    handles = _n.trace_begin(label, [(d, tuple(s)) for d, s in sigs])
    done = False
    try:
        outs = fn([Tensor(h) for h in handles])
        fid = _n.trace_end([t._h for t in outs], True)
        done = True
    finally:
        if not done:
            _n.trace_abort()
    return fid


# ---------------------------------------------------------------- gradcheck

# `stagecheck check --gradcheck` (src/gradcheck.rs) runs the original with
# `__import__('stagecheck').gradients._gradcheck_on()` first: every eager
# `tape.gradient` then also compares each gradient with central differences
# of the recorded computation replayed in float64, one line per source.
# The number of the next checked gradient call, 0 while off. Rebound, never
# mutated: the sandbox's restore after every run (executor/src/sandbox.rs,
# shallow) turns it off again, so a checked run does not reach the next.
_GRADCHECK = 0
# Per dtype of the tape's gradient: |g - fd| <= ATOL + RTOL * max(|g|, |fd|).
TOLERANCES = {'float64': (1e-6, 1e-5), 'float32': (1e-3, 1e-2)}


def _gradcheck_on():
    global _GRADCHECK
    _GRADCHECK = 1


def _replay(entries, targets, seeds, source_key, perturbed):
    """The targets' weighted sum, the record replayed in float64 with the
    source's value replaced by `perturbed`."""
    f64 = _t.float64
    values = {}

    def value(h):
        v = values.get(id(h))
        if v is not None:
            return v
        if _n.dtype(h) in _FLOATS:
            return _t.cast(Tensor(h), f64)
        return Tensor(h)

    if not isinstance(source_key, tuple):
        values[source_key] = perturbed
    for e in entries:
        if isinstance(e, _VarRead):
            values[id(e.h)] = perturbed if _var_key(e.var) == source_key else _t.cast(Tensor(e.h), f64)
        elif isinstance(e, _Op):
            attrs = e.attrs
            if e.op == 'Cast' and attrs['dtype'] in _FLOATS:
                attrs = dict(attrs, dtype='float64')
            values[id(e.out)] = Tensor(_n.apply(e.op, attrs, [value(h)._h for h in e.ins]))
        else:
            return None
    total = None
    for t, s in zip(targets, seeds):
        term = _t.reduce_sum(value(t._h) * _t.cast(s, f64))
        total = term if total is None else total + term
    return float(total)


def _gradcheck(entries, targets, seeds, flat, results):
    global _GRADCHECK
    n = _GRADCHECK
    for i, (s, g) in enumerate(zip(flat, results)):
        if g is None:
            continue
        if isinstance(s, Variable):
            key, base = _var_key(s), s._value
        else:
            key, base = id(s._h), s
        x = _t.cast(base, _t.float64).numpy()
        flat_x, shape = _flat_list(x), tuple(base.shape)
        got = _flat_list(g.numpy())
        worst, at, status = 0.0, None, 'ok'
        atol, rtol = TOLERANCES[g.dtype.name]
        for j, xj in enumerate(flat_x):
            if not _finite(xj):
                # No difference quotient at an infinity or a NaN.
                continue
            h = 1e-6 * max(1.0, _pyabs(xj))
            ups = []
            for sign in (1.0, -1.0):
                v = list(flat_x)
                v[j] = xj + sign * h
                ups.append(_replay(entries, targets, seeds, key,
                                   _t.reshape(_t.constant(v, _t.float64), list(shape))))
            if ups[0] is None:
                status = 'skipped'
                break
            if not (_finite(ups[0]) and _finite(ups[1])):
                # No difference quotient where the loss is not finite (a
                # NaN elsewhere in a summed target: the tape's gradient is
                # finite, the replayed loss NaN either way; fuzz seed 9).
                continue
            fd = (ups[0] - ups[1]) / (2 * h)
            err = _pyabs(got[j] - fd)
            bad = not err <= atol + rtol * max(_pyabs(fd), _pyabs(got[j]))
            if bad and status != 'FAIL':
                status, worst, at = 'FAIL', err, (j, got[j], fd)
            elif status != 'FAIL' and (err > worst or at is None):
                worst, at = err, (j, got[j], fd)
        print('@@gradcheck gradient=%d source=%d dtype=%s elements=%d max_err=%.3g at=%s status=%s'
              % (n, i, g.dtype.name, len(flat_x), worst, 'none' if at is None else '%d:%r:%r' % at, status))
    _GRADCHECK = n + 1


_pyabs = abs


def _finite(v):
    return v == v and v not in (float('inf'), float('-inf'))


def _flat_list(x):
    if isinstance(x, list):
        out = []
        for i in x:
            out.extend(_flat_list(i))
        return out
    return [x]

"""Gradients through staged calls and staged `if`s: a sub-tape per traced
part (`_SubTape`, `_Part`), a call's recording (`FunctionRecording`,
`_Call`: the graph function returns what its backward needs) and an
`if`'s (`CondRecording`, `_Cond`: a cond over the branches' backward
passes). Loops are `loops.py`'s."""

import _stagecheck_tensor as _n
from stagecheck import tensor as _t
from stagecheck.gradients.tape import StagingError, Tensor, Variable, _FLOATS, _Level, _Op, _Pushing, _Recorder, _VarRead, _backprop, _flatten, _same_key, _take, _var_key, recording
# The trace levels, one list: read through its module, never bound twice
# (the sandbox's leak check names every binding of a runtime container).
from stagecheck.gradients import tape as _tape
from stagecheck.gradients import loops as _loops


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


class _Part(_Pushing):
    """A staged part traced while a tape records: pushes its level."""

    def __init__(self, isolated):
        self.parent = _tape._levels[-1]
        self.sub = _SubTape(self.parent, isolated)

    def _level(self):
        return _Level(self.parent, self.sub)

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
        self.parent = _tape._levels[-1]

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
            elif isinstance(e, _loops._While):
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


class _Paused(_Pushing):
    """No recording while a backward cond's branches are traced."""

    def _level(self):
        return _Level(_tape._levels[-1])


def _trace_part(label, fn):
    return _loops._trace_loop_part(label, [], lambda _: fn())

"""Gradients through staged while/for loops (`LoopRecording`, `_While`):
the body pushes what its backward needs on accumulator lists carried as
extra loop variables (while_v2), and the backward loop pops them."""

import _stagecheck_tensor as _n
from stagecheck import tensor as _t
from stagecheck.gradients.tape import StagingError, Tensor, _FLOATS, _and, _backprop, _fold, _or, _same_key, _take
# The trace levels, one list: read through its module, never bound twice
# (the sandbox's leak check names every binding of a runtime container).
from stagecheck.gradients import tape as _tape
from stagecheck.gradients.staged import _Part, _Paused, _no_higher_order, _outer_refs, _record_on, _sig_of


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
        self.parent = _tape._levels[-1]
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

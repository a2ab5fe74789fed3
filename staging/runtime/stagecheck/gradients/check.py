"""`stagecheck check --gradcheck` (src/oracles/gradcheck/mod.rs) runs the original with
`__import__('stagecheck').gradients.check._gradcheck_on()` first: every
eager `tape.gradient` then also compares each gradient with central
differences of the recorded computation replayed in float64, one line per
source."""

import _stagecheck_tensor as _n
from stagecheck import tensor as _t
from stagecheck.gradients.tape import Tensor, Variable, _FLOATS, _Op, _VarRead, _var_key


# The number of the next checked gradient call, 0 while off. Rebound, never
# mutated: the sandbox's restore after every run (executor/src/snapshot.rs,
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

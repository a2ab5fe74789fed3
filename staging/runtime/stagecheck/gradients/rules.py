"""The backward rule of every differentiable `sc` op, written with `sc` ops
themselves: on eager tensors they compute at once, on symbolic ones (a tape
inside `@sc.function`, or the backward of a staged call or cond) they
record graph nodes, so the eager and staged gradients run the same kernels
in the same order (exactly equal on CPU).

A rule is `(needs_inputs, needs_output, fn)`; `fn(attrs, xs, y, sigs, g)`
gives one gradient (or None) per input. `xs` holds the inputs' values and
`y` the output's only where the rule says it needs them (a staged branch or
call exports those for the backward pass, TF's cond_v2/while_v2
intermediates); `sigs` are the inputs' (dtype name, shape), always known.
Broadcasting: a gradient is summed over the axes its input was broadcast
along (`_unbroadcast`). TensorFlow's conventions where there is a choice:
`maximum` gives ties to the first input, `reduce_max` shares a gradient
among tied elements, `pow`'s exponent gradient is 0 where the base is <= 0."""

from stagecheck import tensor as _t

_FLOATS = ('float32', 'float64')


def _zeros(shape, dtype_name):
    return _t.zeros(list(shape), _t._dtypes[dtype_name])


def _unbroadcast(g, shape):
    """`g` (of the broadcast shape) summed back to `shape`."""
    shape = tuple(shape)
    gs = tuple(g.shape)
    if gs == shape:
        return g
    lead = len(gs) - len(shape)
    axes = list(range(lead)) + [lead + i for i, d in enumerate(shape) if d == 1 and gs[lead + i] != 1]
    if axes:
        g = _t.reduce_sum(g, axis=axes)
    if tuple(g.shape) != shape:
        g = _t.reshape(g, list(shape))
    return g


def _neg(attrs, xs, y, sigs, g):
    return [-g]


def _abs(attrs, xs, y, sigs, g):
    x = xs[0]
    z = _zeros(sigs[0][1], sigs[0][0])
    return [_t.where(x > 0, g, _t.where(x < 0, -g, z))]


def _exp(attrs, xs, y, sigs, g):
    return [g * y]


def _log(attrs, xs, y, sigs, g):
    return [g / xs[0]]


def _sqrt(attrs, xs, y, sigs, g):
    return [g * 0.5 / y]


def _tanh(attrs, xs, y, sigs, g):
    return [g * (1 - y * y)]


def _sigmoid(attrs, xs, y, sigs, g):
    return [g * y * (1 - y)]


def _relu(attrs, xs, y, sigs, g):
    return [_t.where(xs[0] > 0, g, _zeros(sigs[0][1], sigs[0][0]))]


def _add(attrs, xs, y, sigs, g):
    return [_unbroadcast(g, sigs[0][1]), _unbroadcast(g, sigs[1][1])]


def _sub(attrs, xs, y, sigs, g):
    return [_unbroadcast(g, sigs[0][1]), _unbroadcast(-g, sigs[1][1])]


def _mul(attrs, xs, y, sigs, g):
    a, b = xs
    return [_unbroadcast(g * b, sigs[0][1]), _unbroadcast(a * g, sigs[1][1])]


def _div(attrs, xs, y, sigs, g):
    a, b = xs
    return [_unbroadcast(g / b, sigs[0][1]), _unbroadcast(g * (-a / b / b), sigs[1][1])]


def _mod(attrs, xs, y, sigs, g):
    a, b = xs
    return [_unbroadcast(g, sigs[0][1]), _unbroadcast(-g * (a // b), sigs[1][1])]


def _pow(attrs, xs, y, sigs, g):
    a, b = xs
    za = _zeros(tuple(y.shape), sigs[0][0])
    ga = g * b * a ** (b - 1)
    gb = g * y * _t.where(a > 0, _t.log(a), za)
    return [_unbroadcast(ga, sigs[0][1]), _unbroadcast(gb, sigs[1][1])]


def _max_min(first_wins):
    def rule(attrs, xs, y, sigs, g):
        a, b = xs
        pick = first_wins(a, b)
        z = _zeros(tuple(g.shape), sigs[0][0])
        return [_unbroadcast(_t.where(pick, g, z), sigs[0][1]), _unbroadcast(_t.where(pick, z, g), sigs[1][1])]
    return rule


def _swap_last(x):
    r = len(x.shape)
    return _t.transpose(x, list(range(r - 2)) + [r - 1, r - 2])


def _matmul(attrs, xs, y, sigs, g):
    a, b = xs
    return [_t.matmul(g, _swap_last(b)), _t.matmul(_swap_last(a), g)]


def _reduced(attrs, shape):
    """(reduced axes, the keepdims shape, the count of elements reduced)."""
    r = len(shape)
    axis = attrs['axis']
    axes = list(range(r)) if axis is None else sorted(set(a % r for a in axis)) if r else []
    kd = [1 if i in axes else d for i, d in enumerate(shape)]
    count = 1
    for a in axes:
        count *= shape[a]
    return axes, kd, count


def _expand(g, kd, shape, dtype_name):
    return _t.reshape(g, kd) * _t.ones(list(shape), _t._dtypes[dtype_name])


def _reduce_sum(attrs, xs, y, sigs, g):
    dt, shape = sigs[0]
    _, kd, _ = _reduced(attrs, shape)
    return [_expand(g, kd, shape, dt)]


def _reduce_mean(attrs, xs, y, sigs, g):
    dt, shape = sigs[0]
    _, kd, count = _reduced(attrs, shape)
    return [_expand(g / float(count), kd, shape, dt)]


def _reduce_extreme(attrs, xs, y, sigs, g):
    dt, shape = sigs[0]
    _, kd, _ = _reduced(attrs, shape)
    x = xs[0]
    hit = x == _t.reshape(y, kd)
    count = _t.reduce_sum(_t.cast(hit, _t._dtypes[dt]), axis=attrs['axis'], keepdims=True)
    return [_t.where(hit, _t.reshape(g, kd) / count, _zeros(shape, dt))]


def _cast(attrs, xs, y, sigs, g):
    if sigs[0][0] in _FLOATS and attrs['dtype'] in _FLOATS:
        return [_t.cast(g, _t._dtypes[sigs[0][0]])]
    return [None]


def _reshape(attrs, xs, y, sigs, g):
    return [_t.reshape(g, list(sigs[0][1]))]


def _transpose(attrs, xs, y, sigs, g):
    r = len(sigs[0][1])
    perm = attrs['perm'] if attrs['perm'] is not None else list(range(r - 1, -1, -1))
    inv = [0] * r
    for i, p in enumerate(perm):
        inv[p] = i
    return [_t.transpose(g, inv)]


def _axis_slice(g, k, start, stop):
    return g[(slice(None),) * k + (slice(start, stop),)]


def _concat(attrs, xs, y, sigs, g):
    r = len(sigs[0][1])
    k = attrs['axis'] % r
    out, start = [], 0
    for _, shape in sigs:
        out.append(_axis_slice(g, k, start, start + shape[k]))
        start += shape[k]
    return out


def _stack(attrs, xs, y, sigs, g):
    k = attrs['axis'] % (len(sigs[0][1]) + 1)
    return [g[(slice(None),) * k + (i,)] for i in range(len(sigs))]


def _zeros_along(g, k, n, dtype_name):
    shape = list(g.shape)
    shape[k] = n
    return _zeros(shape, dtype_name)


def _index(attrs, xs, y, sigs, g):
    """Indexing's gradient: `g` put back where the index took it from,
    zeros elsewhere (concatenations along each indexed axis, no scatter)."""
    dt, shape = sigs[0]
    items = attrs['items']
    consumed = sum(1 for it in items if isinstance(it, dict))
    picks = []  # per input axis: None (all) or the positions taken
    kept = []   # per input axis: whether the output keeps it
    for it in items:
        if it == 'ellipsis':
            fill = len(shape) - consumed
            picks.extend([None] * fill)
            kept.extend([True] * fill)
        elif isinstance(it, dict):
            n = shape[len(picks)]
            if 'at' in it:
                i = it['at']
                picks.append([i + n if i < 0 else i])
                kept.append(False)
            else:
                s = it['slice']
                picks.append(list(range(n))[slice(s['start'], s['stop'], s['step'])])
                kept.append(True)
    while len(picks) < len(shape):
        picks.append(None)
        kept.append(True)
    sel = [len(p) if p is not None else shape[a] for a, p in enumerate(picks)]
    g = _t.reshape(g, sel)
    for a, p in enumerate(picks):
        n = shape[a]
        if p is None or p == list(range(n)):
            continue
        if p and p == list(range(p[0], p[0] + len(p))):
            parts = []
            if p[0] > 0:
                parts.append(_zeros_along(g, a, p[0], dt))
            parts.append(g)
            if p[0] + len(p) < n:
                parts.append(_zeros_along(g, a, n - p[0] - len(p), dt))
            g = _t.concat(parts, a) if len(parts) > 1 else g
        else:
            where = {q: j for j, q in enumerate(p)}
            parts = [_axis_slice(g, a, where[q], where[q] + 1) if q in where else _zeros_along(g, a, 1, dt)
                     for q in range(n)]
            g = _t.concat(parts, a)
    return [g]


def _gather(attrs, xs, y, sigs, g):
    dt, shape = sigs[0]
    n = shape[0]
    at = _t.range(n) == _t.cast(xs[1], _t.int32)
    at = _t.reshape(at, [n] + [1] * (len(shape) - 1))
    return [_t.where(at, _t.reshape(g, [1] + list(shape[1:])), _zeros(shape, dt)), None]


def _where(attrs, xs, y, sigs, g):
    c = xs[0]
    z = _zeros(tuple(g.shape), sigs[1][0])
    return [None, _unbroadcast(_t.where(c, g, z), sigs[1][1]), _unbroadcast(_t.where(c, z, g), sigs[2][1])]


def _identity(attrs, xs, y, sigs, g):
    return [g]


def _none(attrs, xs, y, sigs, g):
    return [None] * len(sigs)


# op -> (needs the inputs' values, needs the output's value, rule)
RULES = {
    'Neg': (False, False, _neg),
    'Abs': (True, False, _abs),
    'Exp': (False, True, _exp),
    'Log': (True, False, _log),
    'Sqrt': (False, True, _sqrt),
    'Tanh': (False, True, _tanh),
    'Sigmoid': (False, True, _sigmoid),
    'Relu': (True, False, _relu),
    'Add': (False, False, _add),
    'Sub': (False, False, _sub),
    'Mul': (True, False, _mul),
    'Div': (True, False, _div),
    'Mod': (True, False, _mod),
    'FloorDiv': (False, False, _none),
    'Pow': (True, True, _pow),
    'Maximum': (True, False, _max_min(lambda a, b: a >= b)),
    'Minimum': (True, False, _max_min(lambda a, b: a <= b)),
    'MatMul': (True, False, _matmul),
    'ReduceSum': (False, False, _reduce_sum),
    'ReduceMean': (False, False, _reduce_mean),
    'ReduceMax': (True, True, _reduce_extreme),
    'ReduceMin': (True, True, _reduce_extreme),
    'Cast': (False, False, _cast),
    'Reshape': (False, False, _reshape),
    'Transpose': (False, False, _transpose),
    'Concat': (False, False, _concat),
    'Stack': (False, False, _stack),
    'Index': (False, False, _index),
    'Gather': (True, False, _gather),
    'Where': (True, False, _where),
    'Identity': (False, False, _identity),
}

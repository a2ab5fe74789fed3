"""A stand-in for stagecheck's tensor runtime, for the generator's tests only.

Eager, pure Python, and *stricter* than the real one: binary ops need the same
dtype and the same shape (or a Python scalar of the tensor's kind), `where`
needs three tensors of one shape. Generated tensor programs run under it in
CPython, so a program that mixes dtypes, gets a shape wrong or bools a
non-scalar fails the test. It checks typing only: the staging rules are not
modelled (`function` is the identity), and values are not the real ones
(floats are Python's doubles).
"""

import builtins
import math
import os

_py_range = builtins.range


class DType:
    def __init__(self, name):
        self.name = name

    def __repr__(self):
        return 'sc.' + self.name


bool = DType('bool')
int32 = DType('int32')
int64 = DType('int64')
float32 = DType('float32')
float64 = DType('float64')
_INTS = (int32, int64)
_FLOATS = (float32, float64)


class StagingError(Exception):
    pass


def _wrap(x, dtype):
    if dtype is int32:
        return (x + 2**31) % 2**32 - 2**31
    if dtype is int64:
        return (x + 2**63) % 2**64 - 2**63
    return x


def _count(shape):
    n = 1
    for d in shape:
        n *= d
    return n


class Tensor:
    __hash__ = None

    def __init__(self, flat, shape, dtype):
        assert len(flat) == _count(shape), (flat, shape)
        self.flat, self.shape, self.dtype = list(flat), tuple(shape), dtype

    def numpy(self):
        def build(flat, shape):
            if not shape:
                return flat[0]
            step = _count(shape[1:])
            return [build(flat[i * step:(i + 1) * step], shape[1:]) for i in _py_range(shape[0])]
        return build(self.flat, self.shape)

    def __repr__(self):
        return 'tf.Tensor(%r, shape=%r, dtype=%s)' % (self.numpy(), self.shape, self.dtype.name)

    def __bool__(self):
        if self.shape != () or self.dtype is not bool:
            raise ValueError('truth value of a %s %r tensor' % (self.dtype.name, self.shape))
        return self.flat[0]

    def __int__(self):
        if self.shape != ():
            raise ValueError('int() of a non-scalar')
        return int(self.flat[0])

    def __float__(self):
        if self.shape != ():
            raise ValueError('float() of a non-scalar')
        return float(self.flat[0])

    def __len__(self):
        if not self.shape:
            raise TypeError('len of a scalar')
        return self.shape[0]

    def __iter__(self):
        if not self.shape:
            raise TypeError('iterating over a scalar tensor')
        return (self[i] for i in _py_range(self.shape[0]))

    def __getitem__(self, i):
        if isinstance(i, (tuple, slice)):
            return _index(self, i if isinstance(i, tuple) else (i,))
        if not isinstance(i, int) or not self.shape:
            raise TypeError('index %r of shape %r' % (i, self.shape))
        n = self.shape[0]
        if not -n <= i < n:
            raise IndexError('index %d out of range for shape %r' % (i, self.shape))
        i %= n
        step = _count(self.shape[1:])
        return Tensor(self.flat[i * step:(i + 1) * step], self.shape[1:], self.dtype)

    def __add__(self, o): return _bin(lambda a, b: a + b, self, o)
    def __radd__(self, o): return _bin(lambda a, b: a + b, o, self)
    def __sub__(self, o): return _bin(lambda a, b: a - b, self, o)
    def __rsub__(self, o): return _bin(lambda a, b: a - b, o, self)
    def __mul__(self, o): return _bin(lambda a, b: a * b, self, o)
    def __rmul__(self, o): return _bin(lambda a, b: a * b, o, self)
    def __truediv__(self, o): return _bin(_div, self, o, div=True)
    def __floordiv__(self, o): return _bin(_floordiv, self, o, ints=True)
    def __mod__(self, o): return _bin(_mod, self, o, ints=True)
    def __pow__(self, o): return _bin(_pow, self, o)
    def __matmul__(self, o): return matmul(self, o)
    def __and__(self, o): return _bin(lambda a, b: a & b, self, o, bools=True)
    def __xor__(self, o): return _bin(lambda a, b: a ^ b, self, o, bools=True)
    def __or__(self, o): return _bin(lambda a, b: a | b, self, o, bools=True)
    def __eq__(self, o): return _bin(lambda a, b: a == b, self, o, out=bool)
    def __ne__(self, o): return _bin(lambda a, b: a != b, self, o, out=bool)
    def __lt__(self, o): return _bin(lambda a, b: a < b, self, o, out=bool, ordered=True)
    def __le__(self, o): return _bin(lambda a, b: a <= b, self, o, out=bool, ordered=True)
    def __gt__(self, o): return _bin(lambda a, b: a > b, self, o, out=bool, ordered=True)
    def __ge__(self, o): return _bin(lambda a, b: a >= b, self, o, out=bool, ordered=True)
    def __neg__(self): return _un(lambda a: -a, self)
    def __abs__(self): return _un(builtins.abs, self)

    def __invert__(self):
        if self.dtype in _FLOATS:
            raise TypeError('~ of a %s tensor' % self.dtype.name)
        if self.dtype is bool:
            return Tensor([not a for a in self.flat], self.shape, bool)
        return Tensor([~a for a in self.flat], self.shape, self.dtype)


def _index(t, items):
    """`t[items]`: ints and slices, one per axis from the first."""
    if len(items) > len(t.shape):
        raise IndexError('too many indices for shape %r' % (t.shape,))
    def pick(value, items):
        if not items:
            return value
        i, rest = items[0], items[1:]
        if isinstance(i, slice):
            return [pick(v, rest) for v in value[i]]
        if not isinstance(i, int) or not -len(value) <= i < len(value):
            raise IndexError('index %r of %d' % (i, len(value)))
        return pick(value[i], rest)
    out = pick(t.numpy(), items)
    flat, shape, _ = _infer(out)
    # An axis sliced to nothing is never generated.
    if 0 in shape:
        raise ValueError('an empty slice')
    return Tensor(flat, shape, t.dtype)


def _floordiv(a, b):
    if b == 0 and isinstance(a, float):
        return math.nan if a == 0 or a != a else math.copysign(math.inf, a) * math.copysign(1.0, b)
    return a // b


def _mod(a, b):
    if b == 0 and isinstance(a, float):
        return math.nan
    if isinstance(a, float) and (a in (math.inf, -math.inf) or b != b or a != a):
        return math.nan
    return a % b


def _div(a, b):
    try:
        return a / b
    except ZeroDivisionError:
        return math.nan if a == 0 or a != a else math.copysign(math.inf, a) * math.copysign(1.0, b)


def _pow(a, b):
    if isinstance(b, float) and b == 2.0:
        return a * a
    if isinstance(b, int) and b < 0:
        raise ValueError('negative integer power')
    if isinstance(a, float) or isinstance(b, float):
        # Float semantics, as the graph's pow: nan for a negative base to a
        # fractional power (not Python's complex), inf for 0 to a negative one.
        try:
            return math.pow(a, b)
        except ValueError:
            return math.inf if a == 0 else math.nan
        except OverflowError:
            return math.inf
    return a ** b


def _scalar(x, dtype):
    if isinstance(x, builtins.bool):
        if dtype is not bool:
            raise TypeError('a Python bool operand of a %s tensor' % dtype.name)
        return x
    if dtype is bool:
        raise TypeError('a Python %r operand of a bool tensor' % (x,))
    if isinstance(x, int):
        return float(x) if dtype in _FLOATS else x
    if isinstance(x, float):
        if dtype not in _FLOATS:
            raise TypeError('cannot convert %r to %s' % (x, dtype.name))
        return x
    raise TypeError('operand %r' % (x,))


def _bin(f, a, b, out=None, div=False, ints=False, bools=False, ordered=False):
    t = a if isinstance(a, Tensor) else b
    shape = t.shape
    if isinstance(a, Tensor) and isinstance(b, Tensor):
        if a.dtype is not b.dtype:
            raise TypeError('mixed dtypes %s and %s' % (a.dtype.name, b.dtype.name))
        shape = _broadcast_shape(a.shape, b.shape)
        xs, ys = _expand(a, shape), _expand(b, shape)
    elif isinstance(a, Tensor):
        xs, ys = a.flat, [_scalar(b, a.dtype)] * len(a.flat)
    else:
        xs, ys = [_scalar(a, b.dtype)] * len(b.flat), b.flat
    d = t.dtype
    if bools and d in _FLOATS:
        raise TypeError('& or | of %s' % d.name)
    if not bools and (out is None or ordered) and d is bool:
        raise TypeError('arithmetic or ordering on bool')
    if ints and d in _INTS and any(y == 0 for y in ys):
        raise ZeroDivisionError('integer division by zero')
    if div and d in _INTS:
        # `/` of integers gives float64.
        xs, ys, out = [float(x) for x in xs], [float(y) for y in ys], float64
    r = [f(x, y) for x, y in zip(xs, ys)]
    if out is None:
        r = [_wrap(v, d) for v in r]
    return Tensor(r, shape, out or d)


def _broadcast_shape(a, b):
    """NumPy's rule: from the last axis, equal or 1."""
    n = max(len(a), len(b))
    a, b = (1,) * (n - len(a)) + a, (1,) * (n - len(b)) + b
    out = []
    for x, y in zip(a, b):
        if x != y and 1 not in (x, y):
            raise ValueError('shapes %r and %r do not broadcast' % (a, b))
        # A 1 takes the other's size, 0 included.
        out.append(x if y == 1 else y)
    return tuple(out)


def _expand(t, shape):
    """The elements of `t` broadcast to `shape`, flat."""
    src = (1,) * (len(shape) - len(t.shape)) + t.shape
    out = []
    for k in _py_range(_count(shape)):
        idx, rest = [], k
        for d in reversed(shape):
            idx.append(rest % d)
            rest //= d
        idx.reverse()
        flat = 0
        for i, d in zip(idx, src):
            flat = flat * d + (i if d != 1 else 0)
        out.append(t.flat[flat])
    return out


def _un(f, a, floats=False):
    if floats and a.dtype not in _FLOATS:
        raise TypeError('a float op on %s' % a.dtype.name)
    if a.dtype is bool:
        raise TypeError('a numeric op on bool')
    return Tensor([_wrap(f(x), a.dtype) for x in a.flat], a.shape, a.dtype)


def _infer(value):
    if isinstance(value, (list, tuple)):
        if not value:
            return [], (0,), None
        parts = [_infer(v) for v in value]
        shapes = {p[1] for p in parts}
        if len(shapes) != 1:
            raise ValueError('ragged value')
        kinds = {p[2] for p in parts}
        kind = float32 if float32 in kinds else (kinds.pop() if len(kinds) == 1 else int32)
        return [x for p in parts for x in p[0]], (len(value),) + parts[0][1], kind
    if isinstance(value, builtins.bool):
        return [value], (), bool
    if isinstance(value, int):
        return [value], (), int32
    if isinstance(value, float):
        return [value], (), float32
    raise TypeError('constant of %r' % (value,))


def constant(value, dtype=None):
    if isinstance(value, Tensor):
        return value if dtype is None else cast(value, dtype)
    flat, shape, kind = _infer(value)
    d = dtype or kind
    if d in _INTS and kind in _FLOATS:
        raise TypeError('float value for an int dtype')
    return Tensor([float(x) if d in _FLOATS else x for x in flat], shape, d)


def convert_to_tensor(value, dtype=None):
    return constant(value, dtype)


def _fill(shape, dtype, v):
    shape = tuple(shape)
    v = float(v) if dtype in _FLOATS else (v != 0 if dtype is bool else v)
    return Tensor([v] * _count(shape), shape, dtype)


def zeros(shape, dtype=float32):
    return _fill(shape, dtype, 0)


def ones(shape, dtype=float32):
    return _fill(shape, dtype, 1)


def _int(x):
    if isinstance(x, Tensor):
        if x.shape != () or x.dtype not in _INTS:
            raise TypeError('a bound must be an int scalar')
        return x.flat[0]
    return x


def range(start, limit=None, delta=1, dtype=None):
    if limit is None:
        start, limit = 0, start
    vals = list(_py_range(_int(start), _int(limit), _int(delta)))
    d = dtype or int32
    return Tensor([float(v) if d in _FLOATS else v for v in vals], (len(vals),), d)


def eye(n, dtype=float32):
    one, zero = (1.0, 0.0) if dtype in _FLOATS else (1, 0)
    return Tensor([one if i == j else zero for i in _py_range(n) for j in _py_range(n)], (n, n), dtype)


def matmul(a, b):
    if len(a.shape) == 3 and len(b.shape) == 3 and a.shape[0] == b.shape[0]:
        # Batched: one product per leading index.
        outs = [matmul(a[i], b[i]) for i in _py_range(a.shape[0])]
        return Tensor([x for o in outs for x in o.flat], (a.shape[0],) + outs[0].shape, a.dtype)
    if a.dtype is not b.dtype or len(a.shape) != 2 or len(b.shape) != 2 or a.shape[1] != b.shape[0]:
        raise ValueError('matmul of %s %r and %s %r' % (a.dtype.name, a.shape, b.dtype.name, b.shape))
    (r, k), c = a.shape, b.shape[1]
    out = [sum(a.flat[i * k + j] * b.flat[j * c + col] for j in _py_range(k)) for i in _py_range(r) for col in _py_range(c)]
    return Tensor([_wrap(v, a.dtype) for v in out], (r, c), a.dtype)


def _reduce(f, mean=False):
    def reduce(x, axis=None, keepdims=False):
        if x.dtype is bool:
            raise TypeError('reduce of bool')
        def avg(v, n):
            # Integer means truncate toward zero (TensorFlow's).
            return v / n if x.dtype in _FLOATS else int(v / n)
        if axis is None:
            v = f(x.flat)
            return Tensor([_wrap(avg(v, len(x.flat)) if mean else v, x.dtype)], (), x.dtype)
        if len(x.shape) == 1 and axis == 0:
            return reduce(x)
        if len(x.shape) != 2 or axis not in (0, 1):
            raise ValueError('reduce axis %r of shape %r' % (axis, x.shape))
        rows = x.numpy() if axis == 1 else [list(c) for c in zip(*x.numpy())]
        vals = [avg(f(r), len(r)) if mean else f(r) for r in rows]
        return Tensor([_wrap(v, x.dtype) for v in vals], (len(vals),), x.dtype)
    return reduce


reduce_sum = _reduce(sum)
reduce_max = _reduce(max)
reduce_min = _reduce(min)
reduce_mean = _reduce(sum, mean=True)


def argmax(x, axis=0):
    if len(x.shape) == 1 and axis == 0:
        return Tensor([x.flat.index(max(x.flat))], (), int64)
    if len(x.shape) == 2 and axis == 0:
        cols = [list(c) for c in zip(*x.numpy())]
        return Tensor([c.index(max(c)) for c in cols], (len(cols),), int64)
    raise ValueError('argmax axis %r of %r' % (axis, x.shape))


def where(cond, x, y):
    if cond.dtype is not bool or x.dtype is not y.dtype or not (cond.shape == x.shape == y.shape):
        raise ValueError('where of %r %r %r' % (cond, x, y))
    return Tensor([a if c else b for c, a, b in zip(cond.flat, x.flat, y.flat)], x.shape, x.dtype)


def cast(x, dtype):
    def one(v):
        if dtype in _FLOATS:
            return float(v)
        if dtype is bool:
            return v != 0
        if v != v:
            return 0
        bits = 31 if dtype is int32 else 63
        if isinstance(v, float):
            # float -> int truncates and saturates.
            if v >= 2**bits:
                return 2**bits - 1
            if v <= -2**bits:
                return -2**bits
        return _wrap(int(v), dtype)
    return Tensor([one(v) for v in x.flat], x.shape, dtype)


def reshape(x, shape):
    shape = tuple(shape)
    if -1 in shape:
        known = _count([d for d in shape if d != -1])
        shape = tuple(len(x.flat) // known if d == -1 else d for d in shape)
    if _count(shape) != len(x.flat):
        raise ValueError('reshape %r to %r' % (x.shape, shape))
    return Tensor(x.flat, shape, x.dtype)


def transpose(x, perm=None):
    if len(x.shape) != 2 or perm not in (None, [1, 0]):
        raise ValueError('transpose of %r' % (x.shape,))
    r, c = x.shape
    return Tensor([x.flat[i * c + j] for j in _py_range(c) for i in _py_range(r)], (c, r), x.dtype)


def concat(values, axis):
    d, rank = values[0].dtype, len(values[0].shape)
    if rank == 0 or any(v.dtype is not d or len(v.shape) != rank for v in values):
        raise ValueError('concat of %r' % (values,))
    rest = [v.shape[:axis] + v.shape[axis + 1:] for v in values]
    if len(set(rest)) != 1:
        raise ValueError('concat shapes %r' % ([v.shape for v in values],))
    if axis == 0:
        return Tensor([x for v in values for x in v.flat], (sum(v.shape[0] for v in values),) + values[0].shape[1:], d)
    if axis == 1 and rank == 2:
        rows = [sum((v.numpy()[i] for v in values), []) for i in _py_range(values[0].shape[0])]
        return Tensor([x for r in rows for x in r], (len(rows), len(rows[0])), d)
    raise ValueError('concat axis %r' % axis)


def stack(values, axis=0):
    if not values:
        raise ValueError('sc.stack of an empty list')
    d, s = values[0].dtype, values[0].shape
    if any(v.dtype is not d or v.shape != s for v in values) or len(s) > 2 or (len(s) == 2 and axis != 0):
        raise ValueError('stack of %r' % (values,))
    t = Tensor([x for v in values for x in v.flat], (len(values),) + s, d)
    if axis == 0:
        return t
    if axis == 1 and len(s) == 1:
        return transpose(t)
    raise ValueError('stack axis %r' % axis)


def _exp(v):
    try:
        return math.exp(v)
    except OverflowError:
        return math.inf


def exp(x): return _un(_exp, x, floats=True)
def log(x): return _un(lambda v: math.log(v) if v > 0 else (-math.inf if v == 0 else math.nan), x, floats=True)
def sqrt(x): return _un(lambda v: math.sqrt(v) if v >= 0 else math.nan, x, floats=True)
def tanh(x): return _un(math.tanh, x, floats=True)
def sigmoid(x): return _un(lambda v: 1 / (1 + math.exp(-v)) if v > -700 else 0.0, x, floats=True)


def abs(x):
    return _un(builtins.abs, x)


def maximum(a, b): return _bin(max, a, b)
def minimum(a, b): return _bin(min, a, b)


class _NN:
    @staticmethod
    def relu(x):
        return _un(lambda v: v if v > 0 else v * 0, x)


nn = _NN()


# STAGECHECK_MOCK_STALE=global,attr,item: `function` models a staged function
# whose traces are never checked for those kinds of Python values (a dropped
# trace guard): each call of a given argument signature runs with the values
# of those kinds as they were at its first call, as a stale trace would.
# The generator's tests show with it that a program's changes between calls
# reach its output.
_STALE = frozenset(k for k in os.environ.get('STAGECHECK_MOCK_STALE', '').split(',') if k)


def _data(mapping):
    return {k: v for k, v in mapping.items() if not k.startswith('__') and not callable(v)}


def _snapshot(g):
    """The values of the stale kinds in module dict `g`: ints of globals,
    contents of lists and dicts, data attributes of the module's classes
    and instances."""
    s = {}
    for name, v in list(g.items()):
        if name.startswith('__'):
            continue
        if 'global' in _STALE and type(v) in (int, float):
            s[name] = ('global', v)
        elif 'item' in _STALE and type(v) in (list, dict):
            s[name] = ('item', type(v)(v))
        elif 'attr' in _STALE and getattr(v, '__module__', None) == g['__name__'] and hasattr(v, '__dict__'):
            s[name] = ('attr', _data(vars(v)))
    return s


def _restore(g, s):
    for name, (kind, v) in s.items():
        obj = g[name]
        if kind == 'global':
            g[name] = v
        elif kind == 'item':
            obj.clear()
            obj.update(v) if type(obj) is dict else obj.extend(v)
        else:
            for k in _data(vars(obj)):
                delattr(obj, k)
            for k, a in v.items():
                setattr(obj, k, a)


def _signature(a):
    return (a.dtype.name, a.shape) if isinstance(a, Tensor) else ('py', a)


def function(f=None, **options):
    if f is None:
        return lambda g: function(g, **options)
    if not _STALE:
        return f
    first = {}

    def staged(*args):
        key = tuple(_signature(a) for a in args)
        if key not in first:
            first[key] = _snapshot(f.__globals__)
            return f(*args)
        now = _snapshot(f.__globals__)
        _restore(f.__globals__, first[key])
        try:
            return f(*args)
        finally:
            _restore(f.__globals__, now)
    return staged


class Variable:
    """Strict: assignments keep the dtype and the shape."""
    __hash__ = None

    def __init__(self, initial_value, dtype=None):
        self._value = initial_value if isinstance(initial_value, Tensor) else constant(initial_value, dtype)

    def read_value(self):
        return self._value

    value = read_value

    def assign(self, value):
        if not isinstance(value, Tensor) or (value.dtype, value.shape) != (self._value.dtype, self._value.shape):
            raise TypeError('assigning %r to a Variable of %r' % (value, self._value))
        self._value = value
        return self

    def assign_add(self, delta):
        return self.assign(self._value + delta)

    def assign_sub(self, delta):
        return self.assign(self._value - delta)

    def __repr__(self):
        return 'Variable(%r)' % (self._value,)


def py_function(func, inp, Tout):
    """Strict: one input tensor, a result of dtype `Tout` and its shape."""
    if len(inp) != 1 or not isinstance(inp[0], Tensor) or not isinstance(Tout, DType):
        raise TypeError('py_function(%r, %r, %r)' % (func, inp, Tout))
    out = func(*inp)
    if not isinstance(out, Tensor) or out.dtype is not Tout or out.shape != inp[0].shape:
        raise TypeError('py_function result %r for %r' % (out, inp[0]))
    return out


class device:
    def __init__(self, name):
        self.name = name

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        return False


def print(*values, sep=' ', end='\n'):
    builtins.print(*values, sep=sep, end=end)


class GradientTape:
    def __init__(self, persistent=False, watch_accessed_variables=True):
        self.persistent = persistent
        self.used = False

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        return False

    def watch(self, t):
        pass

    def gradient(self, target, sources, output_gradients=None, unconnected_gradients='none'):
        if self.used and not self.persistent:
            raise RuntimeError('A non-persistent GradientTape can only be used to compute one set of gradients (or jacobians)')
        self.used = True

        def one(s):
            if isinstance(s, (list, tuple)):
                return type(s)(one(x) for x in s)
            v = s.read_value() if isinstance(s, Variable) else s
            return zeros(list(v.shape), v.dtype)
        return one(sources)


def stop_gradient(t):
    return t

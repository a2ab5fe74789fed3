"""Tensors as programs see them: `sc.constant`, `sc.matmul`, `t + 1`, ...

A `Tensor` holds a handle of the native module `_stagecheck_tensor`
(staging/src/tensors/): an eager value (ndarray, computed at once by the
graph crate's kernels) or, while a function is being traced, a symbolic
value of the graph under construction. Every operation goes through
`_apply(op, attrs, inputs)`, which computes eager inputs now and records a
node when an input is symbolic, so eager and staged runs share one kernel.

Dtypes follow TensorFlow: no implicit mixing of tensor dtypes; a Python
scalar takes the tensor's dtype (a float into an integer tensor is an
error); `constant` picks int32 for ints, float32 for floats.
"""

import _stagecheck_tensor as _n
from stagecheck.ag.variables import Undefined as _Undefined

_pybool = bool
_pyint = int
_pyfloat = float
_pyabs = abs
_pyrange = range
_pyprint = print


class DType:
    __slots__ = ('name',)

    def __init__(self, name):
        self.name = name

    def __repr__(self):
        return 'sc.' + self.name

    def __eq__(self, other):
        return isinstance(other, DType) and other.name == self.name

    def __hash__(self):
        return hash(self.name)


bool = DType('bool')
int32 = DType('int32')
int64 = DType('int64')
float32 = DType('float32')
float64 = DType('float64')
_dtypes = {d.name: d for d in (bool, int32, int64, float32, float64)}


# Staging refused: the program cannot be traced into a graph faithfully.
StagingError = _n.StagingError


def _dtype_name(dtype):
    if dtype is None:
        return None
    if isinstance(dtype, DType):
        return dtype.name
    raise TypeError('dtype must be an sc dtype, not %r' % (dtype,))


class Tensor:
    __slots__ = ('_h',)
    __hash__ = None

    def __init__(self, handle):
        self._h = handle

    @property
    def dtype(self):
        return _dtypes[_n.dtype(self._h)]

    @property
    def shape(self):
        return _n.shape(self._h)

    @property
    def ndim(self):
        return len(_n.shape(self._h))

    def numpy(self):
        return _n.to_python(self._h)

    def _scalar(self, what):
        if _n.is_symbolic(self._h):
            raise StagingError('%s of a symbolic tensor: its value is not known while tracing' % what)
        if _n.shape(self._h) != ():
            raise ValueError('%s of a tensor of shape %s: only scalars convert' % (what, _n.shape(self._h)))
        return _n.to_python(self._h)

    def __bool__(self):
        return _pybool(self._scalar('bool()'))

    def __int__(self):
        return _pyint(self._scalar('int()'))

    def __float__(self):
        return _pyfloat(self._scalar('float()'))

    def __index__(self):
        if self.dtype not in (int32, int64):
            raise TypeError('only integer tensors can be used as an index')
        return self._scalar('an index')

    def __len__(self):
        shape = _n.shape(self._h)
        if not shape:
            raise TypeError('len() of a scalar tensor')
        return shape[0]

    def __iter__(self):
        shape = _n.shape(self._h)
        if not shape:
            raise TypeError('iteration over a scalar tensor')
        if _n.is_symbolic(self._h):
            raise StagingError('iterating over a symbolic tensor in Python: use a for statement in a staged function')
        return iter([self[i] for i in _pyrange(shape[0])])

    def __repr__(self):
        return 'sc.Tensor(%s, shape=%s, dtype=%s)' % (_n.format(self._h), _shape_text(self.shape), self.dtype.name)

    __str__ = __repr__

    def __getitem__(self, index):
        if isinstance(index, Tensor) and _n.is_symbolic(index._h):
            # A run-time scalar index (a staged loop's counter, a node id).
            return Tensor(_apply('Gather', None, [self._h, index._h]))
        return Tensor(_apply('Index', {'items': _index_items(index)}, [self._h]))

    def __add__(self, o): return _binary('Add', self, o)
    def __radd__(self, o): return _binary('Add', o, self)
    def __sub__(self, o): return _binary('Sub', self, o)
    def __rsub__(self, o): return _binary('Sub', o, self)
    def __mul__(self, o): return _binary('Mul', self, o)
    def __rmul__(self, o): return _binary('Mul', o, self)
    def __truediv__(self, o): return _binary('Div', self, o)
    def __rtruediv__(self, o): return _binary('Div', o, self)
    def __floordiv__(self, o): return _binary('FloorDiv', self, o)
    def __rfloordiv__(self, o): return _binary('FloorDiv', o, self)
    def __mod__(self, o): return _binary('Mod', self, o)
    def __rmod__(self, o): return _binary('Mod', o, self)
    def __pow__(self, o): return _binary('Pow', self, o)
    def __rpow__(self, o): return _binary('Pow', o, self)
    def __matmul__(self, o): return matmul(self, o)
    def __rmatmul__(self, o): return matmul(o, self)
    def __and__(self, o): return _binary('BitAnd', self, o)
    def __rand__(self, o): return _binary('BitAnd', o, self)
    def __or__(self, o): return _binary('BitOr', self, o)
    def __ror__(self, o): return _binary('BitOr', o, self)
    def __xor__(self, o): return _binary('BitXor', self, o)
    def __rxor__(self, o): return _binary('BitXor', o, self)
    def __eq__(self, o): return _binary('Eq', self, o)
    def __ne__(self, o): return _binary('Ne', self, o)
    def __lt__(self, o): return _binary('Lt', self, o)
    def __le__(self, o): return _binary('Le', self, o)
    def __gt__(self, o): return _binary('Gt', self, o)
    def __ge__(self, o): return _binary('Ge', self, o)
    def __neg__(self): return _unary('Neg', self)
    def __pos__(self): return self
    def __abs__(self): return _unary('Abs', self)

    def __invert__(self):
        return _unary('LogicalNot' if self.dtype == bool else 'Invert', self)


# Set by stagecheck.gradients while a tape records at the current trace
# level: every op is offered to it, and every Variable read. `_apply` is the
# native apply itself, rebound by gradients (`_refresh`) to a recording
# wrapper only while a tape records, and back when it stops: no Python frame
# per op otherwise (the sandbox's restore after a run also undoes a rebinding).
_tape_hook = None
_record_variable = None
_apply = _n.apply


def _shape_text(shape):
    if len(shape) == 1:
        return '(%d,)' % shape[0]
    return '(' + ', '.join(str(d) for d in shape) + ')'


def _index_items(index):
    if not isinstance(index, tuple):
        index = (index,)
    items = []
    for i in index:
        if i is None:
            items.append('new_axis')
        elif i is Ellipsis:
            items.append('ellipsis')
        elif isinstance(i, slice):
            items.append({'slice': {'start': _opt_int(i.start), 'stop': _opt_int(i.stop), 'step': _opt_int(i.step)}})
        elif isinstance(i, Tensor) and _n.is_symbolic(i._h):
            raise StagingError('indexing with a symbolic tensor is supported for one scalar index only (t[i])')
        else:
            items.append({'at': i.__index__()})
    return items


def _opt_int(x):
    return None if x is None else x.__index__()


def _handle(x, dtype_name):
    """`x` as a handle: a tensor's own, or a Python value of `dtype_name`."""
    if isinstance(x, Tensor):
        return x._h
    if isinstance(x, Variable):
        return x.read_value()._h
    if isinstance(x, _Undefined):
        # A name staged control flow could not give a value (staging/undefined.py).
        raise StagingError("'%s' %s" % (x.symbol_name, getattr(x, 'why', 'is unbound here')))
    return _n.constant(x, dtype_name)


def _binary(op, a, b):
    # Two tensors, the common case: what the general path below gives them.
    if type(a) is Tensor and type(b) is Tensor:
        return Tensor(_apply(op, None, [a._h, b._h]))
    if isinstance(a, Variable):
        a = a.read_value()
    if isinstance(b, Variable):
        b = b.read_value()
    if isinstance(a, Tensor):
        dt = _n.dtype(a._h)
    elif isinstance(b, Tensor):
        dt = _n.dtype(b._h)
    else:
        dt = None
    return Tensor(_apply(op, None, [_handle(a, dt), _handle(b, dt)]))


def _unary(op, a, attrs=None):
    return Tensor(_apply(op, attrs, [_handle(a, None)]))


def convert_to_tensor(value, dtype=None):
    if isinstance(value, Variable):
        value = value.read_value()
    if isinstance(value, Tensor):
        if dtype is not None and value.dtype != dtype:
            raise TypeError('expected %s, got a %s tensor' % (dtype.name, value.dtype.name))
        return value
    return Tensor(_n.constant(value, _dtype_name(dtype)))


def constant(value, dtype=None):
    if isinstance(value, Variable):
        value = value.read_value()
    if isinstance(value, Tensor):
        return value if dtype is None else cast(value, dtype)
    return Tensor(_n.constant(value, _dtype_name(dtype)))


def _shape_list(shape):
    if isinstance(shape, Tensor):
        shape = shape.numpy()
    if isinstance(shape, _pyint):
        return [shape]
    return [d.__index__() for d in shape]


def zeros(shape, dtype=float32):
    return Tensor(_apply('Fill', {'shape': _shape_list(shape), 'dtype': dtype.name, 'value': 0.0}, []))


def ones(shape, dtype=float32):
    return Tensor(_apply('Fill', {'shape': _shape_list(shape), 'dtype': dtype.name, 'value': 1.0}, []))


def range(start, limit=None, delta=1, dtype=None):
    if limit is None:
        start, limit = 0, start
    if any(isinstance(x, Tensor) and _n.is_symbolic(x._h) for x in (start, limit, delta)):
        # A symbolic bound: a range only a staged `for` iterates (staging/control_flow.py).
        from stagecheck.staging import SymbolicRange
        return SymbolicRange(start, limit, delta)
    if dtype is None:
        dtype = float32 if any(isinstance(x, _pyfloat) for x in (start, limit, delta)) else int32
    return Tensor(_apply('Range', {'start': _pyfloat(start), 'limit': _pyfloat(limit), 'delta': _pyfloat(delta), 'dtype': dtype.name}, []))


def eye(n, dtype=float32):
    return Tensor(_apply('Eye', {'n': n.__index__(), 'dtype': dtype.name}, []))


def matmul(a, b):
    return Tensor(_apply('MatMul', None, [_handle(a, None), _handle(b, None)]))


def _axis(axis):
    if axis is None:
        return None
    if isinstance(axis, (list, tuple)):
        return [a.__index__() for a in axis]
    return [axis.__index__()]


def _reduce(op):
    def reduce(x, axis=None, keepdims=False):
        return _unary(op, x, {'axis': _axis(axis), 'keepdims': _pybool(keepdims)})
    reduce.__name__ = op
    return reduce


reduce_sum = _reduce('ReduceSum')
reduce_max = _reduce('ReduceMax')
reduce_min = _reduce('ReduceMin')
reduce_mean = _reduce('ReduceMean')


def argmax(x, axis=0):
    return _unary('ArgMax', x, {'axis': axis.__index__()})


def where(cond, x, y):
    h = _handle(x, None) if isinstance(x, Tensor) else None
    dt = _n.dtype(h) if h is not None else (_n.dtype(y._h) if isinstance(y, Tensor) else None)
    return Tensor(_apply('Where', None, [_handle(cond, 'bool'), _handle(x, dt), _handle(y, dt)]))


def cast(x, dtype):
    return _unary('Cast', x, {'dtype': dtype.name})


def reshape(x, shape):
    return _unary('Reshape', x, {'shape': _shape_list(shape)})


def transpose(x, perm=None):
    return _unary('Transpose', x, {'perm': None if perm is None else _shape_list(perm)})


def concat(values, axis):
    return Tensor(_apply('Concat', {'axis': axis.__index__()}, [_handle(v, None) for v in values]))


def stack(values, axis=0):
    if getattr(type(values), '_sc_staged_list', False):
        # A list built in staged control flow (staging/lists.py).
        return values._sc_stack(axis)
    return Tensor(_apply('Stack', {'axis': axis.__index__()}, [_handle(v, None) for v in values]))


def exp(x): return _unary('Exp', x)
def log(x): return _unary('Log', x)
def sqrt(x): return _unary('Sqrt', x)
def tanh(x): return _unary('Tanh', x)
def sigmoid(x): return _unary('Sigmoid', x)
def abs(x): return _unary('Abs', x)
def maximum(a, b): return _binary('Maximum', a, b)
def minimum(a, b): return _binary('Minimum', a, b)


def relu(x):
    return _unary('Relu', x)


def _print_text(v):
    """What `sc.print` prints for `v`: a tensor's (or variable's) elements, else str."""
    if isinstance(v, Variable):
        v = v.read_value()
    if isinstance(v, Tensor):
        return _n.format(v._h)
    return str(v)


def print(*values, sep=' ', end='\n'):
    """`tf.print`: prints tensors by value (no `sc.Tensor(...)` wrapper); in
    a staged function, at every execution (staging/printing.py)."""
    if _n.trace_current() is not None:
        from stagecheck.staging import printing
        return printing.sc_print(values, sep, end)
    _pyprint(sep.join([_print_text(v) for v in values]), end=end)


def _tracing():
    return _n.trace_current() is not None


def _variable_text(t):
    return '<sc.Variable shape=%s dtype=%s, numpy=%s>' % (_shape_text(t.shape), t.dtype.name, _n.format(t._h))


class Variable:
    """`tf.Variable(initial_value, dtype=None)`: a tensor that can change.
    Staged functions capture it by reference (guards.py guards it by
    identity, so a new value is no retrace): in a trace, each read and each
    assignment is a host node (staging/host.py) run at every execution, in
    order, so assignments in staged loops and branches are seen after the
    call. Its dtype and shape are fixed: assigning another is a StagingError."""

    __slots__ = ('_value',)
    __hash__ = None

    def __init__(self, initial_value, dtype=None):
        if _tracing():
            raise StagingError('an sc.Variable created inside a staged function (the original makes a new one at '
                               'every call; the graph would share one): create it outside')
        if isinstance(initial_value, (Tensor, Variable)):
            self._value = convert_to_tensor(initial_value, dtype)
        else:
            self._value = constant(initial_value, dtype)

    @property
    def dtype(self):
        return self._value.dtype

    @property
    def shape(self):
        return self._value.shape

    def read_value(self):
        if _tracing():
            from stagecheck.staging import host
            value = host.read_variable(self)
        else:
            value = self._value
        if _tape_hook is not None:
            # A tape watches the Variables read while it records.
            _record_variable(self, value)
        return value

    def value(self):
        return self.read_value()

    def numpy(self):
        if _tracing():
            raise StagingError('numpy() of an sc.Variable inside a staged function: its value is known only at execution')
        return self._value.numpy()

    def assign(self, value):
        if isinstance(value, Variable):
            value = value.read_value()
        if not isinstance(value, Tensor):
            value = constant(value, self._value.dtype)
        before = (self._value.dtype, self._value.shape)
        if (value.dtype, value.shape) != before:
            raise StagingError('assigning a %s %s value to an sc.Variable of %s %s: a Variable keeps its dtype and shape'
                               % (value.dtype.name, _shape_text(value.shape), before[0].name, _shape_text(before[1])))
        if _tracing():
            from stagecheck.staging import host
            host.assign_variable(self, value)
        else:
            self._value = value
        return self

    def assign_add(self, delta):
        return self.assign(self.read_value() + delta)

    def assign_sub(self, delta):
        return self.assign(self.read_value() - delta)

    def __repr__(self):
        if _tracing():
            raise StagingError('the text of an sc.Variable inside a staged function (its value is known only at '
                               'execution): print it, or print it in a list or tuple')
        return _variable_text(self._value)

    __str__ = __repr__

    def __bool__(self):
        return _pybool(self.read_value())

    def __int__(self):
        return _pyint(self.read_value())

    def __float__(self):
        return _pyfloat(self.read_value())

    def __index__(self):
        return self.read_value().__index__()

    def __len__(self):
        return len(self.read_value())

    def __iter__(self):
        return iter(self.read_value())

    def __getitem__(self, index):
        return self.read_value()[index]


def _delegate(name):
    def method(self, *args):
        return getattr(self.read_value(), name)(*args)
    method.__name__ = name
    return method


for _name in ('__add__', '__radd__', '__sub__', '__rsub__', '__mul__', '__rmul__', '__truediv__', '__rtruediv__',
              '__floordiv__', '__rfloordiv__', '__mod__', '__rmod__', '__pow__', '__rpow__', '__matmul__',
              '__rmatmul__', '__and__', '__rand__', '__or__', '__ror__', '__xor__', '__rxor__', '__eq__', '__ne__',
              '__lt__', '__le__', '__gt__', '__ge__', '__neg__', '__pos__', '__abs__', '__invert__'):
    setattr(Variable, _name, _delegate(_name))
del _name


def py_function(func, inp, Tout):
    """`tf.py_function` (staging/host.py)."""
    from stagecheck.staging import host
    return host.py_function(func, inp, Tout)

"""Host nodes: Python run at every execution of a graph, in node order
(graph `Node::Host`; staging/src/tensors/mod.rs `host_call`). What
staging's side effects become: `print` and `sc.print` (printing.py), reads
and assignments of an `sc.Variable` (tensor.py), `sc.py_function`."""

import _stagecheck_tensor as _n
from stagecheck import tensor as _t
from stagecheck.staging.structures import _signature

Tensor = _t.Tensor
StagingError = _t.StagingError


def tracing():
    """Whether a trace is under construction (every tensor made now is symbolic)."""
    return _n.trace_current() is not None


def node(label, fn, inputs, results):
    """A host node of the innermost trace: `fn(list of eager tensors, the
    values of `inputs`)` runs at every execution and returns a list of eager
    tensors of the signatures `results`; the node's outputs, symbolic."""
    return [Tensor(h) for h in _n.host(fn, [t._h for t in inputs], [(s[0], tuple(s[1])) for s in results], label)]


def read_variable(var):
    """`var.read_value()` in a trace: the variable's value at execution."""
    return node('read_variable', lambda _: [var._value], [], [_signature(var._value)])[0]


def assign_variable(var, value):
    """`var.assign(value)` in a trace: assigned at execution."""
    def assign(tensors):
        var._value = tensors[0]
        return []
    node('assign_variable', assign, [value], [])


def py_function(func, inp, Tout):
    """`tf.py_function(func, inp, Tout)`: `func` called with eager tensors,
    in a graph at every execution. Tout a dtype (one result) or a list of
    dtypes. In a graph the results' shapes must be known when traced: that
    of the first input (elementwise functions), or scalars without inputs."""
    single = isinstance(Tout, _t.DType)
    touts = [Tout] if single else list(Tout)
    inputs = [_t.convert_to_tensor(x) for x in inp]
    name = getattr(func, '__name__', 'function')

    def results(value, shapes):
        values = [value] if single else list(value)
        if len(values) != len(touts):
            raise ValueError("sc.py_function '%s' returned %d values for %d Tout dtypes" % (name, len(values), len(touts)))
        out = []
        for v, dt, shape in zip(values, touts, shapes):
            t = _t.constant(v, dt) if not isinstance(v, Tensor) else v
            if t.dtype != dt:
                raise TypeError("sc.py_function '%s' returned a %s tensor where Tout says %s" % (name, t.dtype.name, dt.name))
            if shape is not None and t.shape != shape:
                raise StagingError("sc.py_function '%s' returned a value of shape %s; in a staged function its results "
                                   "have the shape of its first input (or are scalars without inputs): %s"
                                   % (name, t.shape, shape))
            out.append(t)
        return out

    if not tracing():
        out = results(func(*inputs), [None] * len(touts))
        return out[0] if single else out
    from stagecheck import gradients
    if gradients.on_path([t._h for t in inputs]):
        # The eager tape records the ops `func` runs; the graph's host node is
        # opaque to it: the staged gradient would silently lack those terms.
        raise StagingError("sc.py_function '%s' on a gradient tape's path in a staged function: its graph node "
                           "is not differentiated (the eager tape records the ops inside it)" % name)
    shape = inputs[0].shape if inputs else ()
    outs = node('py_function ' + name, lambda ts: results(func(*ts), [shape] * len(touts)), inputs,
                [(dt.name, shape) for dt in touts])
    return outs[0] if single else outs

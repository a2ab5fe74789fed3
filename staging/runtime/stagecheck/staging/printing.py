"""`print` and `sc.print` in staged code: a host node printing at every
execution what Python's `print` of the eager values prints (same text, sep,
end), in order with the program's other output. Tensors (and variables) are
the node's inputs, formatted at execution; any other value is formatted
when traced (its text then is what it prints: a value the trace reads is
guarded, and one made during the call is made again at every call)."""

from stagecheck import tensor as _t
from stagecheck.ag import call_trees as _call_trees
from stagecheck.staging.structures import _Tensors
from stagecheck.staging import host as _host

Tensor = _t.Tensor
StagingError = _t.StagingError
_builtin_print = print


class _Repr:
    """A value inside a printed list or tuple, as its repr when traced."""
    __slots__ = ('text',)

    def __init__(self, text):
        self.text = text

    def __repr__(self):
        return self.text


def _now(text, v):
    if '<symbolic ' in text:
        raise StagingError('print of a %s holding a symbolic tensor: only tensors, variables and lists or tuples '
                           'of them print their values at execution' % type(v).__name__)
    return text


def _parts(values, tensor_text):
    """`values` as (parts, tensors): each part a text now, or a function of
    the eager tensors (an iterator) giving its text at execution."""
    parts, tensors = [], []
    for v in values:
        if isinstance(v, Tensor):
            tensors.append(v)
            parts.append(lambda it: tensor_text(next(it)))
        elif isinstance(v, _t.Variable):
            tensors.append(v.read_value())
            parts.append(lambda it: _t._variable_text(next(it)) if tensor_text is str else tensor_text(next(it)))
        elif type(v) in (list, tuple) and _Tensors(v).tensors:
            flat = _Tensors(v)
            flat.template = _repr_leaves(flat.template, v)
            tensors.extend(flat.tensors)
            n = len(flat.tensors)
            parts.append(lambda it, flat=flat, n=n: str(flat.rebuild([next(it) for _ in range(n)])))
        else:
            parts.append(_now(str(v) if tensor_text is str else _t._print_text(v), v))
    return parts, tensors


def _repr_leaves(node, whole):
    kind, v = node
    if kind in ('tuple', 'list'):
        return (kind, [_repr_leaves(x, whole) for x in v])
    if kind == 'py':
        return ('py', _Repr(_now(repr(v), whole)))
    return node


def _texts(parts, tensors):
    it = iter(tensors)
    return [p if type(p) is str else p(it) for p in parts]


def staged_print(*values, **kwargs):
    """Converted code's `print` (an overload of the builtin): a host node
    while tracing, else the builtin."""
    if not _host.tracing():
        return _builtin_print(*values, **kwargs)
    for k, v in kwargs.items():
        if isinstance(v, (Tensor, _t.Variable)):
            raise StagingError("print's %s= is a tensor" % k)
    parts, tensors = _parts(values, str)

    def run(eager):
        _builtin_print(*_texts(parts, eager), **kwargs)
        return []
    _host.node('print', run, tensors, [])


def sc_print(values, sep, end):
    """`sc.print(...)` (`tf.print`) while tracing: a host node."""
    parts, tensors = _parts(values, _t._print_text)

    def run(eager):
        _t._pyprint(sep.join(_texts(parts, eager)), end=end)
        return []
    _host.node('sc.print', run, tensors, [])


_call_trees.overload(print, staged_print)

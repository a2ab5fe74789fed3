"""Staged values and structures: which values are symbolic, the tensors of a
state or result structure and how to rebuild it, tensor signatures."""

import _stagecheck_tensor as _n
from stagecheck import tensor as _t
from stagecheck.staging.undefined import _Unusable

Tensor = _t.Tensor
StagingError = _t.StagingError


def _staged_value(x):
    return isinstance(x, Tensor) and _n.is_symbolic(x._h)


class _Tensors:
    """The tensors of a structure (a state tuple, a return value), flattened,
    and how to put the structure back together from new tensors."""

    def __init__(self, value):
        self.tensors = []
        self.template = self._flatten(value)

    def _flatten(self, v):
        if isinstance(v, Tensor):
            self.tensors.append(v)
            return ('t', len(self.tensors) - 1)
        if type(v) is tuple:
            return ('tuple', [self._flatten(x) for x in v])
        if type(v) is list:
            return ('list', [self._flatten(x) for x in v])
        if getattr(type(v), '_sc_staged_list', False):
            raise StagingError('a list built in staged control flow is returned or passed on as a Python list: '
                               'its length is known only at execution (return sc.stack(l))')
        return ('py', v)

    def refuse_unusable(self):
        def walk(node):
            kind, v = node
            if kind in ('tuple', 'list'):
                for x in v:
                    walk(x)
            elif kind == 'py' and isinstance(v, _Unusable):
                v._refuse()
        walk(self.template)

    def rebuild(self, tensors):
        return self._build(self.template, tensors)

    def _build(self, node, tensors):
        kind, v = node
        if kind == 't':
            return tensors[v]
        if kind == 'raise':
            v()
        if kind == 'tuple':
            return tuple(self._build(x, tensors) for x in v)
        if kind == 'list':
            return [self._build(x, tensors) for x in v]
        return v


def _signature(t):
    return _n.signature(t._h)


def _same_python(a, b):
    try:
        return type(a) is type(b) and (a is b or a == b)
    except Exception:
        return False


def _as_list(state):
    return list(state) if isinstance(state, tuple) else [state]

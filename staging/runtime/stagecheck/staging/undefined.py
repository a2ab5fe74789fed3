"""Names staged control flow leaves without a value (AutoGraph's
`Undefined`, extended): unusable after the statement, or unbound."""

from stagecheck import tensor as _t
from stagecheck.ag.variables import Undefined as _Undefined

StagingError = _t.StagingError


class _Unusable(_Undefined):
    """What a name holds after staged control flow that cannot give it a
    value: bound only inside a staged loop (the original has the last
    iteration's value, or no binding), or in one branch of a staged if.
    Any use of it is refused, with why."""

    __slots__ = ('why',)

    def __init__(self, symbol_name, why='is bound only inside staged control flow and read after it'):
        _Undefined.__init__(self, symbol_name)
        self.why = why

    def _refuse(self, *args, **kwargs):
        raise StagingError("'%s' %s" % (self.symbol_name, self.why))

    __repr__ = __str__ = __bool__ = __len__ = __iter__ = __call__ = __getitem__ = _refuse
    __add__ = __radd__ = __sub__ = __rsub__ = __mul__ = __rmul__ = __truediv__ = __rtruediv__ = _refuse
    __floordiv__ = __rfloordiv__ = __mod__ = __rmod__ = __pow__ = __rpow__ = __matmul__ = __rmatmul__ = _refuse
    __neg__ = __pos__ = __abs__ = __invert__ = __lt__ = __le__ = __gt__ = __ge__ = _refuse
    __and__ = __rand__ = __or__ = __ror__ = __xor__ = __rxor__ = __index__ = __int__ = __float__ = _refuse


def _undefined_read(name, value=None):
    """A read of a local that staged control flow left without a value.
    Unbound before the statement on the path traced (`Undefined`): unbound
    in the original too, which raises UnboundLocalError here (deferred to
    execution inside a staged branch); bound on some symbolic paths only
    (`_Unusable`): refused."""
    if isinstance(value, _Unusable):
        value._refuse()
    if isinstance(value, _Undefined):
        from stagecheck.ag import variables
        raise UnboundLocalError(variables._UNBOUND.replace('stagecheck_probe_', name))
    raise StagingError("'%s' is bound only inside staged control flow and read after it" % name)

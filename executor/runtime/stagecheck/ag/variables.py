"""Mirrors the `variables` converter: reading locals that may be unbound.

Converted code moves statements of a function `f` into functions nested in
`f` (`if_body`, `loop_body`, ...) that reach `f`'s locals through
`nonlocal`. Reading such a local while it is unbound then raises NameError
("cannot access free variable ...") where the original raised
UnboundLocalError. The converter wraps exactly those reads (the reaching
definitions analysis says which) in `ld(lambda: x, 'x')`, which raises what
the original raised, with the VM's own message.
"""


def _unbound_template():
    def probe():
        try:
            stagecheck_probe_
        except UnboundLocalError as e:
            return str(e)
        stagecheck_probe_ = None
    return probe()


_UNBOUND = _unbound_template()


class Undefined:
    """The value of a variable that no path bound, as staged code sees it."""

    __slots__ = ('symbol_name',)

    def __init__(self, symbol_name):
        self.symbol_name = symbol_name

    def __repr__(self):
        return '<undefined ' + self.symbol_name + '>'


class UndefinedReturnValue:
    """The return value of a function before any `return` ran."""


def ld(thunk, name):
    """Reads local `name` of the enclosing converted function through `thunk`."""
    try:
        value = thunk()
    except NameError:
        raise UnboundLocalError(_UNBOUND.replace('stagecheck_probe_', name)) from None
    if isinstance(value, Undefined):
        # Only staged control flow leaves Undefined in a variable.
        from stagecheck.ag import dispatch
        dispatch.impl('undefined_read')(name, value)
    return value


def ldu(thunk, name):
    """Like `ld`, but an unbound local reads as `Undefined(name)` (loop state)."""
    try:
        return thunk()
    except NameError:
        return Undefined(name)

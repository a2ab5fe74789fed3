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
            stagecheck_probe_  # noqa: F821 - read before its binding below, on purpose
        except UnboundLocalError as e:
            return str(e)
        stagecheck_probe_ = None  # noqa: F841 - makes the name local, so the read above raises
    return probe()


_UNBOUND = _unbound_template()


class Undefined:
    """The value of a variable that no path bound, as staged code sees it."""

    __slots__ = ('symbol_name',)

    def __init__(self, symbol_name):
        self.symbol_name = symbol_name

    def __repr__(self):
        return '<undefined ' + self.symbol_name + '>'


# `ld(thunk, name)` reads local `name` of the enclosing converted function
# through `thunk`, raising UnboundLocalError (with `_UNBOUND`'s message)
# where the thunk's read raised NameError; a value `Undefined` goes to the
# staged implementation 'undefined_read'. Native: converted code calls it
# at every such read (staging/src/operators/variables.rs).
from _stagecheck_ag import ld  # noqa: E402 - documented where it is defined, among the Python ones


_UNBOUND_CELL = object()


def ldu_all(thunk, names):
    """A control-flow statement's state (`get_state`): `names` read through
    `thunk` (`lambda: (a, b, ...)`), each unbound one as `Undefined(name)`
    where the original would have raised. One thunk for the whole state, not
    one per name: converted code compiles and runs far fewer functions.

    When every name is bound, the thunk's tuple is the answer. Otherwise
    each name is read on its own, as `lambda: name` would read it: from the
    thunk's closure cell (a local of the converted function: empty cell =
    unbound), else as a global (the function's globals, then builtins)."""
    try:
        return thunk()
    except NameError:
        pass
    cells = {}
    for name, cell in zip(thunk.__code__.co_freevars, thunk.__closure__ or ()):
        try:
            cells[name] = cell.cell_contents
        except ValueError:
            cells[name] = _UNBOUND_CELL
    scope = thunk.__globals__
    builtins = scope.get('__builtins__', {})
    if not isinstance(builtins, dict):
        builtins = builtins.__dict__
    values = []
    for name in names:
        if name in cells:
            value = cells[name]
        else:
            value = scope.get(name, _UNBOUND_CELL)
            if value is _UNBOUND_CELL:
                value = builtins.get(name, _UNBOUND_CELL)
        values.append(Undefined(name) if value is _UNBOUND_CELL else value)
    return tuple(values)

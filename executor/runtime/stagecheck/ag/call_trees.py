"""Mirrors the `call_trees` converter: `f(args)` becomes `converted_call(f)(args)`.

The converter converts every function of the module ahead of time, so a
user function needs nothing more here; `converted_call` resolves the callee
(overloaded builtins such as `print`, `len`, `range` go to their
overloads, which the staging runtime fills) and the call itself stays an
ordinary call: arguments are evaluated, bound and checked by Python, with
Python's own errors.
"""

from stagecheck.ag import dispatch

_BUILTIN = type(len)
_overloads = {}


def overload(builtin, replacement):
    """Calls of `builtin` from converted code go to `replacement`."""
    _overloads[builtin] = replacement


def converted_call(f):
    if dispatch.call_check is not None:
        dispatch.call_check(f)
    # Only builtin functions and plain classes are looked up: their hashes are
    # identities, so no user code (a __hash__, a __eq__) runs here.
    if _overloads:
        kind = type(f)
        if kind is _BUILTIN or kind is type:
            return _overloads.get(f, f)
    return f

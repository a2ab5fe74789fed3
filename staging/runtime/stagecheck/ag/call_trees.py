"""Mirrors the `call_trees` converter: `f(args)` becomes `converted_call(f)(args)`.

The converter converts every function of the module ahead of time, so a
user function needs nothing more here; `converted_call` resolves the callee
(overloaded builtins such as `print`, `len`, `range` go to their
overloads, which the staging runtime fills) and the call itself stays an
ordinary call: arguments are evaluated, bound and checked by Python, with
Python's own errors.
"""

from _stagecheck_ag import converted_call

# Read by the native `converted_call` (staging/src/operators/expressions.rs)
# at every call, as is `dispatch.call_check`: the callee first goes to
# `call_check` when it is set; only builtin functions and plain classes are
# looked up here (their hashes are identities, so no user code runs).
_overloads = {}


def overload(builtin, replacement):
    """Calls of `builtin` from converted code go to `replacement`."""
    _overloads[builtin] = replacement


"""Which values are staged, and which implementation handles them.

Every operator first asks `staged(x)` of the value its decision depends on
(a condition, an iterable, a callee). Nothing is staged until the staging
runtime registers its types and implementations here (`register`), so the
converter never changes when staging arrives: plain values run now, staged
values go to `impl(name)`.
"""

_staged_types = ()
_impls = {}

# Called with every callee while staged control flow is being traced (set by
# the staging runtime around such traces): Python side effects there would
# run once per trace, not once per execution.
call_check = None


def register(types, impls):
    """Adds staged value types and the operator implementations for them."""
    global _staged_types
    _staged_types = _staged_types + tuple(types)
    _impls.update(impls)


def staged(value):
    # isinstance of an empty tuple is False. The operators inline this test
    # (`isinstance(x, dispatch._staged_types)`): they run on every statement
    # of converted code, and a Python call costs more than the test itself.
    return isinstance(value, _staged_types)


def impl(name):
    return _impls[name]

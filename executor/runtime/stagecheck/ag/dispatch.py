"""Which values are staged, and which implementation handles them.

Every operator first tests `isinstance(x, dispatch.staged_types)` on the
value its decision depends on (a condition, an iterable, a callee): inline,
not through a function, as the operators run on every statement of converted
code; `isinstance` of the empty tuple is False. Nothing is staged until the staging
runtime registers its types and implementations here (`register`), so the
converter never changes when staging arrives: plain values run now, staged
values go to `impl(name)`.
"""

staged_types = ()
_impls = {}

# Called with every callee while staged control flow is being traced (set by
# the staging runtime around such traces): Python side effects there would
# run once per trace, not once per execution.
call_check = None


def register(types, impls):
    """Adds staged value types and the operator implementations for them."""
    global staged_types
    staged_types = staged_types + tuple(types)
    _impls.update(impls)


def staged(value):
    """Whether `value` is staged (what each operator tests inline)."""
    return isinstance(value, staged_types)


def impl(name):
    return _impls[name]

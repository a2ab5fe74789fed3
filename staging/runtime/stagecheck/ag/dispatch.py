"""Which values are staged, and which implementation handles them.

Every operator (native: staging/src/operators/) first tests whether the
value its decision depends on (a condition, an iterable, a target) is an
instance of one of `staged_types`, by its class alone, reading this
module's globals at every call. Nothing is staged until the staging
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


def impl(name):
    return _impls[name]

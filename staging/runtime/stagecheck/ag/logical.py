"""Mirrors the `logical_expressions` converter: and, or, not, chained comparisons.

The operators are native (`_stagecheck_ag`, staging/src/operators/logical.rs).
`and_(first, *thunks, test=False)` and `or_(first, *thunks, test=False)`
take the first operand as a value (Python always evaluates it) and the
others as functions, evaluated lazily, left to right, each at most once,
with each truth test done once, as Python does. Where the result is
itself only tested for truth (an `if` or `while` test, ...), the converter
passes `test=True`: a short-circuiting operand, already tested, is returned
as a bool, so that the statement's own test does not call its `__bool__` a
second time (Python jumps there without testing it again). `not_(value,
test=False)` is `not value`. `compare(a, '<', lambda: b(), '<', lambda: c)`
is `a < b() < c`: every operand evaluated once, the chain stopping at the
first false link. A staged operand or link goes to `dispatch.impl(name)`.
"""

from _stagecheck_ag import and_, or_, not_, compare

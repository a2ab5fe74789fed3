"""Staging: `@sc.function` traces a function into a graph, and the staged
implementations of the control-flow operators build cond and while nodes.

In the original and unstaged modes `sc.function` is the identity. In the
staged mode a call looks up its trace cache, keyed by its arguments (the
dtypes and shapes of its tensors, the values of its scalars, the identity
of anything else: staging/src/tensors/call_key.rs), and reuses the first
trace of the key whose guards hold (every Python value the trace could
have read is unchanged: guards.rs, `guards._Guards`); otherwise it traces:
tensor arguments become placeholders, the tensors it reaches at globals
and closure cells become placeholders too (read again at every call, so
rebinding them is seen), and Python control flow runs now, leaving no node
(seed 000 fig. 1b). The graph then runs on the executor
(staging/src/tensors/, graph/). A call made while tracing another function
becomes a call node (composition; recursion on a staged condition).

What cannot be staged faithfully raises StagingError: a variable bound in
only one branch of a staged `if` and used after it, a Python value that a
staged branch or loop changes, a loop variable whose dtype or shape changes,
Python side effects (mutating outer lists) inside staged control flow.
A list of the function's own grown in staged control flow is lowered to
list ops (lists.py).
`print`, `sc.print`, `assert`, `sc.Variable` and `sc.py_function` are staged.

One module per concern, like AutoGraph's operators:

| module                  | holds                                                      |
|-------------------------|------------------------------------------------------------|
| functions               | `sc.function`: the staged call, trace cache, the trace     |
| guards                  | what a trace read, walked into guards (guards.rs)          |
| control_flow            | staged if / while / for, `_traced` (one path -> a function) |
| conditional_expressions | staged `a if c else b` (one cond value)                    |
| logical                 | staged and / or / not / chained comparisons                |
| asserts                 | assert on a tensor (a cond raising AssertionError)         |
| host                    | host nodes: Python at every execution (variables, py_function) |
| printing                | print and sc.print in staged code (host nodes)             |
| raises                  | exceptions while tracing -> raise nodes                    |
| side_effects            | Python side effects under staged control flow              |
| lists                   | lists in staged control flow -> list ops (TensorList)      |
| undefined               | names staged control flow leaves without a value           |
| structures              | symbolic values, flattened structures, signatures          |
| placement               | `sc.device`                                                |

This module registers the staged implementations with the converter's
operators (`stagecheck.ag.dispatch`) and re-exports what the rest of the
runtime and the native side use (`Function`, `_fresh_exception`, `_Guards`).
"""

from stagecheck import tensor as _t
from stagecheck.ag import dispatch as _dispatch
from stagecheck.staging.structures import Tensor, _staged_value
from stagecheck.staging.undefined import _undefined_read
from stagecheck.staging.raises import _fresh_exception
from stagecheck.staging.guards import _Guards, _Runtime
from stagecheck.staging.control_flow import if_stmt, while_stmt, for_stmt, SymbolicRange, _eager_while, _eager_for
from stagecheck.staging.conditional_expressions import if_exp
from stagecheck.staging.logical import and_, or_, compare, _eager_and, _eager_or, _eager_compare, _not
from stagecheck.staging.asserts import _assert_staged, _eager_assert
from stagecheck.staging import printing as _printing  # registers print's overload
from stagecheck.staging import lists as _lists  # registers len's overload
from stagecheck.staging.functions import Function, function
from stagecheck.staging.placement import device

StagingError = _t.StagingError


def _staged(impl, eager):
    """The implementation for symbolic first arguments, else the eager one
    (eager tensors follow Python's semantics through __bool__)."""
    return lambda x, *rest: impl(x, *rest) if _staged_value(x) else eager(x, *rest)


_dispatch.register([Tensor, SymbolicRange], {
    'undefined_read': _undefined_read,
    'if_stmt': _staged(if_stmt, lambda c, body, orelse, *_: body() if c else orelse and orelse()),
    'while_stmt': _staged(while_stmt, lambda c, test, body, *_: _eager_while(c, test, body)),
    'for_stmt': lambda it, *rest: for_stmt(it, *rest) if (_staged_value(it) or isinstance(it, SymbolicRange)) else _eager_for(it, *rest[:2]),
    'if_exp': _staged(if_exp, lambda c, t, f, _: t() if c else f()),
    'and_': _staged(and_, _eager_and),
    'or_': _staged(or_, _eager_or),
    'not_': _staged(_not, lambda v, test: not v),
    'compare': _staged(compare, _eager_compare),
    # Subscripts of tensors are the tensor's own (Index, or Gather for a
    # symbolic index); assignment into a tensor fails as Python's does.
    'get_item': lambda target, i: target[i],
    'set_item': lambda target, key, value: target.__setitem__(key, value),
    'assert_stmt': _staged(_assert_staged, _eager_assert),
})

_Runtime._load()

"""Mirrors the `control_flow` converter: if, while and for statements.

The operators are native (`_stagecheck_ag`, staging/src/operators/
control_flow.rs): converted code calls one for every statement it runs.

- `if_stmt(cond, body, orelse, get_state, set_state, symbol_names, nouts)`
  calls `body()` or `orelse()` as `cond` is true or false (`orelse` is None
  for an `if` without `else`: nothing to call).
- `while_stmt(test, body, get_state, set_state, symbol_names, opts)` calls
  `test()` before every iteration, as Python evaluates the test, and
  `body()` while it is true.
- `for_stmt(iter_, extra_test, body, get_state, set_state, symbol_names,
  opts)` calls `body(item)` for each item; `extra_test` (or None) stops the
  loop after a lowered break or return, before the next item is taken from
  the iterator, as Python's `break` does.

The bodies arrive as functions nested in the converted function; they reach
its variables through `nonlocal`/`global`, so running them here is running
the original statements. `get_state`/`set_state` and `symbol_names` describe
the variables the statement modifies; only staged implementations use them
(a staged condition or iterable goes to `dispatch.impl(name)`). A statement
that modifies none passes `no_state` for both.
"""

from _stagecheck_ag import if_stmt, while_stmt, for_stmt


def no_state(*vars_):
    """`get_state` and `set_state` of a statement that modifies no variable:
    no state to read (an empty tuple), none to write."""
    return ()

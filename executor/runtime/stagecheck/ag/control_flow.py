"""Mirrors the `control_flow` converter: if, while and for statements.

The bodies arrive as functions nested in the converted function; they reach
its variables through `nonlocal`/`global`, so running them here is running
the original statements. `get_state`/`set_state` and `symbol_names` describe
the variables the statement modifies; only staged implementations use them.
"""

from stagecheck.ag import dispatch


def if_stmt(cond, body, orelse, get_state, set_state, symbol_names, nouts):
    if isinstance(cond, dispatch.staged_types):
        return dispatch.impl('if_stmt')(cond, body, orelse, get_state, set_state, symbol_names, nouts)
    if cond:
        body()
    else:
        orelse()


def while_stmt(test, body, get_state, set_state, symbol_names, opts):
    """`test` is a function: it is evaluated before every iteration, as in Python."""
    while True:
        cond = test()
        if isinstance(cond, dispatch.staged_types):
            return dispatch.impl('while_stmt')(cond, test, body, get_state, set_state, symbol_names, opts)
        if not cond:
            return
        body()


def for_stmt(iter_, extra_test, body, get_state, set_state, symbol_names, opts):
    """`extra_test` (or None) stops the loop after a lowered break or return,
    before the next item is taken from the iterator, as Python's `break` does."""
    if isinstance(iter_, dispatch.staged_types):
        return dispatch.impl('for_stmt')(iter_, extra_test, body, get_state, set_state, symbol_names, opts)
    if extra_test is None:
        for target in iter_:
            body(target)
    else:
        for target in iter_:
            body(target)
            if not extra_test():
                break

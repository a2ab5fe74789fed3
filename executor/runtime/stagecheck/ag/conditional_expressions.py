"""Mirrors the `conditional_expressions` converter: `a if cond else b`."""

from stagecheck.ag import dispatch


def if_exp(cond, if_true, if_false, expr_repr):
    if isinstance(cond, dispatch.staged_types):
        return dispatch.impl('if_exp')(cond, if_true, if_false, expr_repr)
    return if_true() if cond else if_false()

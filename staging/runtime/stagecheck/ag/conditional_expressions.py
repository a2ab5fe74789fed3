"""Mirrors the `conditional_expressions` converter: `a if cond else b`
becomes `if_exp(cond, lambda: a, lambda: b, expr_repr)`, native
(`_stagecheck_ag`, staging/src/operators/expressions.rs)."""

from _stagecheck_ag import if_exp

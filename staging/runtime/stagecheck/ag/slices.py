"""Mirrors the `slices` converter: `x[i]` is `get_item(x, i)`, and
`x[i] = v` is `set_item(target=x, key=i, value=v)`: converted code passes
the arguments by keyword in Python's evaluation order (value, target, key).
Native (`_stagecheck_ag`, staging/src/operators/expressions.rs)."""

from _stagecheck_ag import get_item, set_item

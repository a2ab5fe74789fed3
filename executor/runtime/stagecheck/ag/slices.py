"""Mirrors the `slices` converter: `x[i]` and `x[i] = v`."""

from stagecheck.ag import dispatch


def get_item(target, i):
    if isinstance(target, dispatch.staged_types):
        return dispatch.impl('get_item')(target, i)
    return target[i]


def set_item(target, key, value):
    """`target[key] = value`. Converted code passes the arguments by keyword
    in Python's evaluation order (value, target, key)."""
    if isinstance(target, dispatch.staged_types):
        return dispatch.impl('set_item')(target, key, value)
    target[key] = value

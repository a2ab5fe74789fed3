"""Mirrors the `slices` converter: `x[i]` and `x[i] = v`."""

from stagecheck.ag import dispatch


def get_item(target, i):
    if dispatch.staged(target):
        return dispatch.impl('get_item')(target, i)
    return target[i]


def set_item(target, i, value):
    """Called after `value` was evaluated, as Python evaluates it first."""
    if dispatch.staged(target):
        return dispatch.impl('set_item')(target, i, value)
    target[i] = value

"""Mirrors the `asserts` converter: `assert test, msg`."""

from stagecheck.ag import dispatch


def assert_stmt(expression1, expression2=None):
    """`expression2` is a function: the message is evaluated only on failure."""
    if isinstance(expression1, dispatch.staged_types):
        return dispatch.impl('assert_stmt')(expression1, expression2)
    if not expression1:
        if expression2 is None:
            raise AssertionError
        raise AssertionError(expression2())

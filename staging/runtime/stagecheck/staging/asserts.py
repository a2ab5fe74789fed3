"""`assert` in converted code: eager tests now; a symbolic test (a bool
scalar) is a cond whose false branch raises AssertionError(message): a raise
node (raises.py), raised at execution at the assert's line."""

from stagecheck.staging.conditional_expressions import _cond_value


def _eager_assert(test, message):
    if not test:
        if message is None:
            raise AssertionError
        raise AssertionError(message())


def _assert_staged(test, message):
    _cond_value(test, lambda: None, lambda: _eager_assert(False, message), 'assert')

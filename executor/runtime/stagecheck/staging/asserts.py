"""`assert` in converted code: eager tests now; a symbolic test is staged."""

from stagecheck import tensor as _t

StagingError = _t.StagingError


def _assert_not_staged(test, message):
    raise StagingError('an assert on a symbolic tensor is not staged yet')


def _eager_assert(test, message):
    if not test:
        if message is None:
            raise AssertionError
        raise AssertionError(message())

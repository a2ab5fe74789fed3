"""Staged logical expressions: lazy `and`/`or` and chained comparisons on a
symbolic operand as conds; `not` as a logical not."""

from stagecheck import tensor as _t
from stagecheck.staging.structures import Tensor
from stagecheck.staging.conditional_expressions import _cond_value

StagingError = _t.StagingError


def _as_bool_tensor(v):
    if isinstance(v, Tensor):
        return v
    if type(v) is bool:
        return _t.constant(v)
    raise StagingError('an operand of a staged and/or is a %s, not a bool tensor' % type(v).__name__)


def and_(value, rest, test):
    """`value and rest...` with `value` symbolic: `cond(value, rest, value)`."""
    from stagecheck.ag import logical
    return _cond_value(value, lambda: _as_bool_tensor(logical.and_(*rest, test=test) if len(rest) > 1 else rest[0]()),
                       lambda: value, 'and')


def or_(value, rest, test):
    from stagecheck.ag import logical
    return _cond_value(value, lambda: value,
                       lambda: _as_bool_tensor(logical.or_(*rest, test=test) if len(rest) > 1 else rest[0]()), 'or')


def compare(result, right, rest):
    """A chained comparison whose link `result` is symbolic: the rest of the
    chain runs only where it holds, as Python's does."""
    from stagecheck.ag import logical
    return _cond_value(result, lambda: _as_bool_tensor(logical.compare(right, *rest)), lambda: result, 'comparison')


def _eager_and(value, rest, test):
    if not value:
        return False if test else value
    from stagecheck.ag import logical
    return logical.and_(*rest, test=test) if len(rest) > 1 else rest[0]()


def _eager_or(value, rest, test):
    if value:
        return True if test else value
    from stagecheck.ag import logical
    return logical.or_(*rest, test=test) if len(rest) > 1 else rest[0]()


def _eager_compare(result, right, rest):
    if not result:
        return result
    from stagecheck.ag import logical
    return logical.compare(right, *rest)


def _not(value, test):
    if not test:
        raise StagingError('`not` of a symbolic tensor used as a value: the original gives a Python bool, '
                           'which a graph cannot; use ~ (logical not) or test it in an if or while')
    return ~value if value.dtype == _t.bool else value == 0

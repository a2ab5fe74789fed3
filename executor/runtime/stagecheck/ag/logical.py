"""Mirrors the `logical_expressions` converter: and, or, not, chained comparisons.

Operands arrive as functions and are evaluated lazily, left to right, each
at most once, with each truth test done once, as Python does. Where the
result is itself only tested for truth (an `if` or `while` test, ...), the
converter passes `test=True`: a short-circuiting operand, already tested,
is returned as a bool, so that the statement's own test does not call its
`__bool__` a second time (Python jumps there without testing it again).
"""

from stagecheck.ag import dispatch


def and_(*operands, test=False):
    for i in range(len(operands) - 1):
        value = operands[i]()
        if isinstance(value, dispatch.staged_types):
            return dispatch.impl('and_')(value, operands[i + 1:], test)
        if not value:
            return False if test else value
    return operands[-1]()


def or_(*operands, test=False):
    for i in range(len(operands) - 1):
        value = operands[i]()
        if isinstance(value, dispatch.staged_types):
            return dispatch.impl('or_')(value, operands[i + 1:], test)
        if value:
            return True if test else value
    return operands[-1]()


def not_(value, test=False):
    if isinstance(value, dispatch.staged_types):
        return dispatch.impl('not_')(value, test)
    return not value


_COMPARISONS = {
    '==': lambda a, b: a == b,
    '!=': lambda a, b: a != b,
    '<': lambda a, b: a < b,
    '<=': lambda a, b: a <= b,
    '>': lambda a, b: a > b,
    '>=': lambda a, b: a >= b,
    'is': lambda a, b: a is b,
    'is not': lambda a, b: a is not b,
    'in': lambda a, b: a in b,
    'not in': lambda a, b: a not in b,
}


def compare(left, *rest):
    """`a < b() < c` as `compare(a, '<', lambda: b(), '<', lambda: c)`:
    every operand evaluated once, the chain stopping at the first false link."""
    last = len(rest) - 2
    for i in range(0, len(rest), 2):
        right = rest[i + 1]()
        result = _COMPARISONS[rest[i]](left, right)
        if i == last:
            return result
        if isinstance(result, dispatch.staged_types):
            return dispatch.impl('compare')(result, right, rest[i + 2:])
        if not result:
            return result
        left = right

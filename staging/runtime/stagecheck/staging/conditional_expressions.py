"""Staged conditional values: `a if c else b` with a symbolic `c` as a cond
node with one output (also what and/or/comparison chains use)."""

import _stagecheck_tensor as _n
from stagecheck import tensor as _t
from stagecheck.staging.structures import Tensor, _signature, _same_python
from stagecheck.staging.control_flow import _traced

StagingError = _t.StagingError


def _cond_value(pred, true_fn, false_fn, what):
    """The value of `true_fn()` or `false_fn()` as `pred` (a symbolic bool
    scalar) decides: both traced, one cond node."""
    if _signature(pred) != ('bool', ()):
        raise StagingError('the condition of a staged %s must be a bool scalar, not %s %s' % ((what,) + _signature(pred)))

    def branch(fn):
        def run(_):
            v = fn()
            return v, ([v] if isinstance(v, Tensor) else [])
        return run

    then_id, a, a_raised = _traced(what + '_true', [], branch(true_fn))
    else_id, b, b_raised = _traced(what + '_false', [], branch(false_fn))
    if a_raised or b_raised:
        # A value that raises is none: the other is the expression's.
        outs = _n.cond(pred._h, then_id, else_id)
        if a_raised and b_raised:
            raise a_raised
        v = b if a_raised else a
        return Tensor(outs[0]) if isinstance(v, Tensor) else v
    if isinstance(a, Tensor) and isinstance(b, Tensor):
        if _signature(a) != _signature(b):
            raise StagingError('the two values of a staged %s differ in dtype/shape: %s %s and %s %s'
                               % ((what,) + _signature(a) + _signature(b)))
        return Tensor(_n.cond(pred._h, then_id, else_id)[0])
    if not isinstance(a, Tensor) and not isinstance(b, Tensor) and _same_python(a, b):
        _n.cond(pred._h, then_id, else_id)
        return a
    raise StagingError('the two values of a staged %s must both be tensors (got %s and %s)'
                       % (what, type(a).__name__, type(b).__name__))


def if_exp(cond, if_true, if_false, expr_repr):
    return _cond_value(cond, if_true, if_false, 'conditional expression')

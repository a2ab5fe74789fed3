"""Python side effects while tracing: inside staged control flow they would
run once per trace, not once per execution; every callee joins the guards
of the traces in progress (guards.py). A list's append or pop there is
lowered to list ops when the list is the staged function's own (lists.py)."""

from stagecheck import tensor as _t
from stagecheck.staging.guards import _Guards

StagingError = _t.StagingError


# Depth of staged control flow being traced (control_flow._traced_now):
# Python side effects there would run once per trace, not once per
# execution. A module global, restored after every run like a class
# attribute, but assigning one does not invalidate the VM's type caches
# (RustPython scans its whole method cache at every class attribute
# assignment: this counter's, twice per traced branch or loop part, were
# 4% of a staged tensor run's instructions).
depth = 0


def check_side_effect(f):
    """Called by converted_call while tracing: the callee joins the guards
    of the traces in progress; Python side effects cannot be staged inside
    staged control flow (they would run once per trace)."""
    for collector in _Guards.stack:
        collector.called(f)
    if depth == 0:
        return
    owner = getattr(f, '__self__', None)
    if isinstance(owner, (list, dict, set)) and getattr(f, '__name__', '') in _MUTATORS:
        if type(owner) is list and f.__name__ in ('append', 'pop'):
            # A list of a variable of the staged function becomes a list
            # of the graph (lists.py): the trace starts again.
            from stagecheck.staging.lists import on_mutation
            on_mutation(owner, f.__name__)
        raise StagingError('%s.%s inside staged control flow mutates a Python object once when traced' % (type(owner).__name__, f.__name__))


_MUTATORS = frozenset(['append', 'extend', 'insert', 'pop', 'remove', 'clear', 'update', 'add', 'discard',
                       'setdefault', 'popitem', 'sort', 'reverse'])

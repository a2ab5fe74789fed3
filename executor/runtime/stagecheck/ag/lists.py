"""List operations staged code replaces (TensorFlow's TensorList): the
`call_trees` converter routes `l.append(x)` and `l.pop()` through
`converted_call`, which hands bound methods of staged lists to these."""

from stagecheck.ag import dispatch


def list_append(target, x):
    if isinstance(target, dispatch.staged_types):
        return dispatch.impl('list_append')(target, x)
    target.append(x)
    return target


def list_pop(target, i=-1):
    if isinstance(target, dispatch.staged_types):
        return dispatch.impl('list_pop')(target, i)
    return target.pop(i)

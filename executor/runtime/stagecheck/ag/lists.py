"""List operations staged code replaces (TensorFlow's TensorList). The
converter emits no call of these: `l.append(x)` stays a call of the
list's own method through `converted_call`, and the staging runtime lowers
a list grown in staged control flow itself (staging/lists.py: the list
becomes a `StagedList`, whose `append` and `pop` record list ops). These
keep AutoGraph's operator names for a converter that would emit them."""

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

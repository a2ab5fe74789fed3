"""Staged control flow: `if` as a cond node, `while` and `for` as while
nodes (AutoGraph's control_flow operators), each path traced into a graph
function (`_traced`). Each is a scope of staged lists (lists.py): the
lists its functions close over are carried as extra outputs / loop
variables, and a trace stopped to promote a Python list starts again."""

import _stagecheck_tensor as _n
from stagecheck import tensor as _t
from stagecheck.ag import dispatch as _dispatch
from stagecheck.ag.variables import Undefined as _Undefined
from stagecheck.staging.structures import Tensor, _signature, _same_python, _as_list, _staged_value
from stagecheck.staging.undefined import _Unusable
from stagecheck.staging.raises import _run_path, _end_raising
from stagecheck.staging.side_effects import check_side_effect
from stagecheck.staging import side_effects as _side_effects
from stagecheck.staging import lists as _lists
from stagecheck import gradients as _grad

StagingError = _t.StagingError


def _traced(label, params, fn, taped=None):
    """`_traced_now` under a gradient tape's part (gradients/): `taped` for
    a cond's branch; any other part traced while a tape records must record
    nothing (its gradient is not built)."""
    if taped is None:
        if not _grad.recording():
            return _traced_now(label, params, fn)
        refused = _grad.refuse_part(label)
        with refused:
            traced = _traced_now(label, params, fn)
        refused.check(traced[1])
        return traced
    with taped:
        return _traced_now(label, params, fn)


def _traced_now(label, params, fn):
    """Traces `fn(placeholders)` into a graph function; returns its id, what
    `fn` returned, and the exception that ended the trace (deferred to a
    raise node: `_defer`) or None."""
    handles = _n.trace_begin(label, params)
    _side_effects.depth += 1
    saved_check = _dispatch.call_check
    _dispatch.call_check = check_side_effect
    # Any other exception aborts the trace and goes on unchanged.
    done = False
    result = None
    try:
        ret, raised = _run_path(lambda: fn([Tensor(h) for h in handles]))
        if raised is None:
            result, outputs = ret
            # Pending: the cond or while node completes the signature.
            fid = _n.trace_end([t._h for t in outputs], True)
        else:
            fid = _end_raising(raised.site, raised.exc, True)
        done = True
    finally:
        if not done:
            _n.trace_abort()
        _side_effects.depth -= 1
        _dispatch.call_check = saved_check
    return fid, result, raised


def _check_branch_states(names, then_state, else_state, one_sided):
    for i, (name, a, b) in enumerate(zip(names, then_state, else_state)):
        if i in one_sided or isinstance(a, _Undefined):
            continue
        if isinstance(a, Tensor) != isinstance(b, Tensor):
            raise StagingError("'%s' is a tensor in one branch of a staged if and a Python value in the other" % name)
        if isinstance(a, Tensor):
            if _signature(a) != _signature(b):
                raise StagingError("'%s' has dtype/shape %s in the true branch and %s in the false branch of a staged if"
                                   % (name, _signature(a), _signature(b)))
        elif not _same_python(a, b):
            if name.startswith('do_return'):
                raise StagingError('a return in one branch of a staged if only (return in both branches, or after the if)')
            raise StagingError("'%s' is a Python value that a staged if changes (%r or %r)" % (name, a, b))


def _no_branch():
    """The branch of an `if` with no `else` (converted code passes None)."""


def if_stmt(cond, body, orelse, get_state, set_state, names, nouts, lists=None):
    """`orelse` is None for an `if` without `else`. `names[:nouts]` are the statement's outputs (live after it); the
    rest are names a branch binds that nothing reads after: reset before
    each branch and after the node, so no branch sees another's values.
    An output that only one branch binds (and was unbound before) becomes
    unusable rather than refused at once: liveness over-approximates, and
    the original may never read it.

    `lists`: the staged lists the branches close over (staging/lists.py),
    given by the scope the statement is (None: run as one); both branches
    start from their values and give them back after the state's tensors,
    and the cond's last outputs are the lists after it."""
    if orelse is None:
        orelse = _no_branch
    if _signature(cond) != ('bool', ()):
        raise StagingError('the condition of a staged if must be a bool scalar, not %s %s' % _signature(cond))
    if lists is None:
        before = get_state()

        def attempt(lists):
            set_state(tuple(_as_list(before)))
            if_stmt(cond, body, orelse, get_state, set_state, names, nouts, lists)
        return _lists.scoped('if', (body, orelse), attempt)
    init = _as_list(get_state())
    init_lists = _lists.list_tensors(lists)
    outputs = names[:nouts]
    # Under a gradient tape: the branches' values kept for the backward pass.
    taped = _grad.CondRecording(cond) if _grad.recording() else None

    def trace(skip):
        def branch(fn, k):
            def run(_):
                _lists.set_lists(lists, init_lists)
                set_state(tuple(init))
                fn()
                state = _promote_flags(outputs, _as_list(get_state())[:nouts])
                tensors = [v for i, v in enumerate(state) if isinstance(v, Tensor) and i not in skip]
                outs = tensors + _lists.list_tensors(lists)
                if taped is not None:
                    outs = outs + taped.extras(k, outs)
                return state, outs
            return run
        then = _traced('if_true', [], branch(body, 0), taped and taped.part(0))
        orelse_ = _traced('if_false', [], branch(orelse, 1), taped and taped.part(1))
        return then, orelse_

    (then_id, then_state, then_raised), (else_id, else_state, else_raised) = trace(())
    if then_raised or else_raised:
        if taped is not None and taped.discovered():
            raise StagingError('a gradient through a staged if with a branch that raises is not staged yet')
        # A branch that raises defines nothing: the other gives the outputs.
        outs = [Tensor(h) for h in _n.cond(cond._h, then_id, else_id)]
        if then_raised and else_raised:
            set_state(tuple(init))
            _lists.set_lists(lists, init_lists)
            raise then_raised
        state = else_state if then_raised else then_state
        it = iter(outs)
        final = [next(it) if isinstance(v, Tensor) else v for v in state]
        set_state(tuple(final + init[nouts:]))
        _lists.set_lists(lists, list(it))
        return
    one_sided = {i: ('true' if isinstance(b, _Undefined) else 'false')
                 for i, (a, b) in enumerate(zip(then_state, else_state))
                 if isinstance(a, _Undefined) != isinstance(b, _Undefined)}
    if one_sided and taped is None:
        # The branch that binds them gives them up as outputs: what tracing
        # both again without them gives (the values still computed, unused).
        _drop_one_sided(then_id, then_state, one_sided)
        _drop_one_sided(else_id, else_state, one_sided)
    elif one_sided:
        # Under a tape the backward pass's extras follow the outputs: trace again without them.
        (then_id, then_state, _), (else_id, else_state, _) = trace(one_sided)
    if taped is not None and taped.discovered():
        # Again, each branch giving the values both backward passes need.
        (then_id, then_state, _), (else_id, else_state, _) = trace(one_sided)
    _check_branch_states(outputs, then_state, else_state, one_sided)
    outs = [Tensor(h) for h in _n.cond(cond._h, then_id, else_id)]
    if taped is not None:
        outs = taped.split(outs)
    it = iter(outs)
    final = []
    for i, v in enumerate(then_state):
        if i in one_sided:
            final.append(_Unusable(outputs[i], 'is bound in the %s branch of a staged if only, and used after it' % one_sided[i]))
        else:
            final.append(next(it) if isinstance(v, Tensor) else v)
    set_state(tuple(final + init[nouts:]))
    _lists.set_lists(lists, list(it))


def _drop_one_sided(fid, state, one_sided):
    """Drops from branch `fid`'s pending outputs (its state's tensors, in
    order, first) those at the indices of `one_sided`."""
    positions = []
    p = 0
    for i, v in enumerate(state):
        if isinstance(v, Tensor):
            if i in one_sided:
                positions.append(p)
            p += 1
    if positions:
        _n.drop_outputs(fid, positions)


def _is_flag(name):
    """The converter's break/continue flags (`break_`, `continue_1`, ...)."""
    return name.startswith('break_') or name.startswith('continue_')


def _promote_flags(names, values):
    """Break and continue flags set under staged control flow become bool
    tensors (AutoGraph's lowering of break/continue in staged loops)."""
    return [_t.constant(v) if _is_flag(n) and type(v) is bool else v for n, v in zip(names, values)]


def _loop(kind, names, get_state, set_state, extra_init, test, step, fns, lists=None):
    """A staged loop: the state's tensors, `extra_init` (a counter) and the
    staged lists the user functions `fns` close over (`lists`, given by
    the scope the loop is: staging/lists.py) are the loop variables;
    `test(extra)` gives the bool scalar that continues it, `step(extra)`
    runs one iteration and gives the new `extra`."""
    if lists is None:
        before = get_state()

        def attempt(lists):
            # A trace stopped to promote a list may have left its values bound.
            set_state(tuple(_as_list(before)))
            return _loop(kind, names, get_state, set_state, extra_init, test, step, fns, lists)
        return _lists.scoped(kind + ' loop', fns, attempt)
    init = _promote_flags(names, _as_list(get_state()))
    # The lists' values before the loop (tracing rebinds them).
    list_inits = [lst._h for lst in lists]
    # Names unbound before the loop are the body's own (`err = pred - y`):
    # not carried; reading one after the loop is refused (variables.ld).
    local = [i for i, v in enumerate(init) if isinstance(v, _Undefined)]
    slots = [i for i, v in enumerate(init) if isinstance(v, Tensor)]
    n_extra = len(extra_init)
    n_vars = n_extra + len(slots)
    n_user = n_vars + len(lists)
    params = [_signature(t) for t in extra_init] + [_signature(init[i]) for i in slots] + [lst._list_sig() for lst in lists]
    # Under a gradient tape: the body's values kept for the backward pass,
    # on accumulator lists carried after the loop's own (gradients/).
    taped = _grad.LoopRecording(kind) if _grad.recording() else None

    def with_vars(tensors):
        state = list(init)
        for i, t in zip(slots, tensors[n_extra:n_vars]):
            state[i] = t
        set_state(tuple(state))
        _lists.set_lists(lists, tensors[n_vars:n_user])
        return tensors[:n_extra]

    def cond_fn(tensors):
        return None, [_loop_condition(test(with_vars(tensors)), kind)]

    def body_fn(tensors):
        if taped is not None:
            taped.enter_body(tensors[:n_user])
        extra = step(with_vars(tensors))
        state = _promote_flags(names, _as_list(get_state()))
        for i, (name, before, after) in enumerate(zip(names, init, state)):
            if i in slots:
                if not isinstance(after, Tensor):
                    raise StagingError("loop variable '%s' stops being a tensor in a staged %s loop" % (name, kind))
                if _signature(after) != _signature(before):
                    raise StagingError("loop variable '%s' changes from %s %s to %s %s in a staged %s loop"
                                       % ((name,) + _signature(before) + _signature(after) + (kind,)))
            elif i not in local and not _same_python(before, after):
                if name.startswith('do_return'):
                    raise StagingError('a return inside a staged %s loop is not staged yet' % kind)
                raise StagingError("'%s' is a Python value that a staged %s loop changes" % (name, kind))
        outs = list(extra) + [state[i] for i in slots] + _lists.list_tensors(lists)
        if taped is not None:
            outs = outs + taped.body_extras(tensors[n_user:], outs)
        return None, outs

    def trace_parts():
        all_params = params + ([] if taped is None else taped.extra_params())
        cond_id, _, cond_raised = _traced(kind + '_cond', all_params, cond_fn, taped and taped.cond_part())
        if cond_raised:
            # The condition raises before any iteration: no body runs.
            body_id, _, _ = _traced(kind + '_body', all_params, lambda tensors: (None, tensors))
        else:
            # A body that raises does so at the first iteration that runs it,
            # after the condition's ops and its own before the raise.
            body_id, _, _ = _traced(kind + '_body', all_params, body_fn, taped and taped.body_part())
        return cond_id, body_id, cond_raised

    cond_id, body_id, cond_raised = trace_parts()
    if taped is not None:
        if not cond_raised and taped.discovered():
            # Again, the body pushing what its backward pass needs.
            cond_id, body_id, cond_raised = trace_parts()
        else:
            taped = None
    handles = [t._h for t in extra_init] + [init[i]._h for i in slots] + list_inits
    if taped is not None:
        handles = handles + taped.initial()
    outs = [Tensor(h) for h in _n.while_loop(cond_id, body_id, handles)]
    if taped is not None:
        outs = taped.split(outs, handles[:n_user])
    if cond_raised:
        set_state(tuple(init))
        _lists.set_lists(lists, [Tensor(h) for h in handles[n_vars:]])
        raise cond_raised
    for i in local:
        init[i] = _Unusable(names[i])
    with_vars(outs)


def _loop_condition(c, kind):
    if not isinstance(c, Tensor) or _signature(c) != ('bool', ()):
        raise StagingError('the condition of a staged %s loop must stay a bool scalar tensor' % kind)
    return c


def while_stmt(first_cond, test, body, get_state, set_state, names, opts):
    """`first_cond` is the test's first evaluation, already traced where the
    loop starts (ag's while_stmt needed it to choose staging): it is the
    first check, carried as a loop variable, and the body evaluates the test
    again after each iteration. Python evaluates the test once per check;
    tracing it again in the loop's condition function would run its effects
    (a py_function, a print in a called function) once more per execution."""
    def step(extra):
        body()
        return [_loop_condition(test(), 'while')]
    _loop('while', names, get_state, set_state, [_loop_condition(first_cond, 'while')], lambda extra: extra[0], step,
          (test, body))


class SymbolicRange:
    """`sc.range(n)` with a symbolic bound: iterated only by a staged `for`
    (a counter, not a tensor whose length a graph would need to know)."""

    def __init__(self, start, limit, delta):
        self.start, self.limit, self.delta = start, limit, delta


def _and_tensor(a, b):
    return a if b is None else (a & b)


def for_stmt(iter_, extra_test, body, get_state, set_state, names, opts):
    def more():
        if extra_test is None:
            return None
        ok = extra_test()
        return ok if isinstance(ok, Tensor) else _t.constant(bool(ok))

    if isinstance(iter_, SymbolicRange):
        start = _t.constant(iter_.start)
        limit, delta = iter_.limit, iter_.delta
        dt = start.dtype
        python_delta = delta if type(delta) in (int, float) else None
        limit = limit if isinstance(limit, Tensor) else _t.constant(limit, dt)
        delta = delta if isinstance(delta, Tensor) else _t.constant(delta, dt)
        # The errors sc.range raises eagerly (bounds against delta's sign).
        start = Tensor(_n.apply('RangeCheck', None, [start._h, limit._h, delta._h]))

        def test(extra):
            i = extra[0]
            if python_delta is not None:
                # The sign is known now: one comparison per iteration.
                going = (i < limit) if python_delta > 0 else (i > limit)
            else:
                going = ((delta > 0) & (i < limit)) | ((delta < 0) & (i > limit))
            return _and_tensor(going, more())

        def step(extra):
            body(extra[0])
            return [extra[0] + delta]

        return _loop('for', names, get_state, set_state, [start], test, step, (body, extra_test))

    shape = _n.shape(iter_._h)
    if not shape:
        raise StagingError('a staged for loop over a scalar tensor')
    n = _t.constant(shape[0])

    def test(extra):
        return _and_tensor(extra[0] < n, more())

    def step(extra):
        i = extra[0]
        body(Tensor(_t._apply('Gather', None, [iter_._h, i._h])))
        return [i + 1]

    return _loop('for', names, get_state, set_state, [_t.constant(0)], test, step, (body, extra_test))


def _eager_while(cond, test, body):
    while True:
        if not cond:
            return
        body()
        cond = test()
        if _staged_value(cond):
            raise StagingError('a while loop whose condition becomes symbolic inside the loop')


def _eager_for(iter_, extra_test, body):
    for target in iter_:
        body(target)
        if extra_test is not None and not extra_test():
            break

"""Staging: `@sc.function` traces a function into a graph, and the staged
implementations of the control-flow operators build cond and while nodes.

In the original and unstaged modes `sc.function` is the identity. In the
staged mode a call looks up its trace cache, keyed by its arguments (the
dtypes and shapes of its tensors, the values of its scalars, the identity
of anything else: executor/src/tensors/call_key.rs), and reuses the first
trace of the key whose guards hold (every Python value the trace could
have read is unchanged: guards.rs, `_Guards` below); otherwise it traces:
tensor arguments become placeholders, the tensors it reaches at globals
and closure cells become placeholders too (read again at every call, so
rebinding them is seen), and Python control flow runs now, leaving no node
(seed 000 fig. 1b). The graph then runs on the executor
(executor/src/tensors/, graph/). A call made while tracing another function
becomes a call node (composition; recursion on a staged condition).

What cannot be staged faithfully raises StagingError: a variable bound in
only one branch of a staged `if` and used after it, a Python value that a
staged branch or loop changes, a loop variable whose dtype or shape changes,
Python side effects (print, mutating outer lists) inside staged control flow.
"""

import _stagecheck_tensor as _n
from stagecheck import tensor as _t
from stagecheck.ag import dispatch as _dispatch
from stagecheck.ag.variables import Undefined as _Undefined

StagingError = _t.StagingError
Tensor = _t.Tensor


def _staged_value(x):
    return isinstance(x, Tensor) and _n.is_symbolic(x._h)


class _Tensors:
    """The tensors of a structure (a state tuple, a return value), flattened,
    and how to put the structure back together from new tensors."""

    def __init__(self, value):
        self.tensors = []
        self.template = self._flatten(value)

    def _flatten(self, v):
        if isinstance(v, Tensor):
            self.tensors.append(v)
            return ('t', len(self.tensors) - 1)
        if type(v) is tuple:
            return ('tuple', [self._flatten(x) for x in v])
        if type(v) is list:
            return ('list', [self._flatten(x) for x in v])
        return ('py', v)

    def refuse_unusable(self):
        def walk(node):
            kind, v = node
            if kind in ('tuple', 'list'):
                for x in v:
                    walk(x)
            elif kind == 'py' and isinstance(v, _Unusable):
                v._refuse()
        walk(self.template)

    def rebuild(self, tensors):
        return self._build(self.template, tensors)

    def _build(self, node, tensors):
        kind, v = node
        if kind == 't':
            return tensors[v]
        if kind == 'raise':
            v()
        if kind == 'tuple':
            return tuple(self._build(x, tensors) for x in v)
        if kind == 'list':
            return [self._build(x, tensors) for x in v]
        return v


def _signature(t):
    return (_n.dtype(t._h), _n.shape(t._h))


def _same_python(a, b):
    try:
        return type(a) is type(b) and (a is b or a == b)
    except Exception:
        return False


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


def _as_list(state):
    return list(state) if isinstance(state, tuple) else [state]


class _SideEffects:
    """Depth of staged control flow being traced: Python side effects there
    would run once per trace, not once per execution."""
    depth = 0


class _PathRaises(BaseException):
    """The path being traced always raises at execution from here (a cond
    whose branches both raise, a call of a staged function that always
    raises): its raise is in the graph already, so tracing the path stops,
    and the enclosing branch or function ends in a raise node (`site`)."""

    def __init__(self, site, exc):
        BaseException.__init__(self)
        self.site = site
        self.exc = exc


_FILE_PREFIX = '<runtime>/'


def _raise_line(exc):
    """The line of the innermost frame of the program in `exc`'s traceback."""
    tb, line = exc.__traceback__, None
    while tb is not None:
        if not tb.tb_frame.f_code.co_filename.startswith(_FILE_PREFIX):
            line = tb.tb_lineno
        tb = tb.tb_next
    return line


def _exc_text(exc):
    try:
        return str(exc)
    except Exception:
        return '<unprintable %s>' % type(exc).__name__


def _defer(exc):
    """`exc`, raised while tracing a staged branch, lazy operand or loop body
    (or a staged function), as a raise site for a raise node: raised when
    execution takes the path. Refused (StagingError, with `exc`'s traceback,
    so at its line) where raising it later would not be what the program
    does: when a `try` or `with` of the traced code would see it (the
    handler runs now or never), when its text shows a symbolic tensor, or
    for a RecursionError (the depth of a trace is not the program's).
    The runtime's own exceptions go on unchanged."""
    if isinstance(exc, (StagingError, _NeedsGuess)) or not isinstance(exc, Exception):
        return None
    why = None
    if isinstance(exc, RecursionError):
        why = 'a RecursionError while tracing depends on the depth of the trace, not of the program'
    elif '<symbolic ' in _exc_text(exc) or '<symbolic ' in repr(exc.args):
        why = 'its message shows a symbolic tensor, whose value is known only at execution'
    elif _n.handler_line() is not None:
        why = 'it would reach a try or with statement of the staged code, whose handler cannot run at execution'
    elif _holds_mutable(exc):
        why = ('its arguments or attributes hold a list, dict, set or bytearray, which the original '
               'may build anew at each raise (each raise of the graph gets the one built when traced)')
    if why is not None:
        raise StagingError('a %s raised in staged control flow cannot be deferred to execution: %s'
                           % (type(exc).__name__, why)).with_traceback(exc.__traceback__) from None
    return _n.raise_site(exc)


_MUTABLE = (list, dict, set, bytearray)


def _holds_mutable(exc):
    """Whether `exc`'s args or attributes hold a built-in mutable container
    (also inside tuples): each raise node execution gets a new exception
    (`_fresh_exception`) but the same container, while the original may
    build one at each raise (`raise E([1])`), and a handler that mutates it
    would tell. Types only, no user code run (`issubclass` of `type`)."""
    todo = list(exc.args) + list(getattr(exc, '__dict__', {}).values())
    while todo:
        v = todo.pop()
        t = type(v)
        if issubclass(t, _MUTABLE):
            return True
        if issubclass(t, (tuple, frozenset)):
            todo.extend(v)
    return False


def _fresh_exception(exc):
    """A new exception like `exc`, for each execution of its raise node: the
    original builds one at every raise (a caught exception kept across two
    calls is another object, its attributes its own). Built without running
    the class's `__init__` again (its arguments need not be `args`); the
    class's `__new__` gets `args`, as pickling does, which builtin
    exceptions with fields (OSError, StopIteration) need."""
    cls = type(exc)
    try:
        new = cls.__new__(cls, *exc.args)
    except Exception:
        new = BaseException.__new__(cls)
    new.args = exc.args
    extra = getattr(exc, '__dict__', None)
    if extra:
        new.__dict__.update(extra)
    new.__cause__ = exc.__cause__
    new.__context__ = exc.__context__
    new.__suppress_context__ = exc.__suppress_context__
    return new


def _end_raising(site, exc, pending, results=()):
    return _n.trace_end_raise(site, type(exc).__name__, _exc_text(exc), _raise_line(exc), pending, list(results))


def _run_path(fn):
    """Traces one path, `fn()`: (its result, None), or (None, the
    `_PathRaises` it ends in) when it raises an exception deferred to a raise
    node (`_defer`) or a path inside it always raises; any other exception
    goes on."""
    try:
        return fn(), None
    except _PathRaises as e:
        return None, e
    except BaseException as e:
        site = _defer(e)
        if site is None:
            raise
        return None, _PathRaises(site, e)


def _traced(label, params, fn):
    """Traces `fn(placeholders)` into a graph function; returns its id, what
    `fn` returned, and the exception that ended the trace (deferred to a
    raise node: `_defer`) or None."""
    handles = _n.trace_begin(label, params)
    _SideEffects.depth += 1
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
        _SideEffects.depth -= 1
        _dispatch.call_check = saved_check
    return fid, result, raised


def if_stmt(cond, body, orelse, get_state, set_state, names, nouts):
    """`names[:nouts]` are the statement's outputs (live after it); the
    rest are names a branch binds that nothing reads after: reset before
    each branch and after the node, so no branch sees another's values.
    An output that only one branch binds (and was unbound before) becomes
    unusable rather than refused at once: liveness over-approximates, and
    the original may never read it."""
    if _signature(cond) != ('bool', ()):
        raise StagingError('the condition of a staged if must be a bool scalar, not %s %s' % _signature(cond))
    init = _as_list(get_state())
    outputs = names[:nouts]

    def trace(skip):
        def branch(fn):
            def run(_):
                set_state(tuple(init))
                fn()
                state = _promote_flags(outputs, _as_list(get_state())[:nouts])
                tensors = [v for i, v in enumerate(state) if isinstance(v, Tensor) and i not in skip]
                return state, tensors
            return run
        then = _traced('if_true', [], branch(body))
        orelse_ = _traced('if_false', [], branch(orelse))
        return then, orelse_

    (then_id, then_state, then_raised), (else_id, else_state, else_raised) = trace(())
    if then_raised or else_raised:
        # A branch that raises defines nothing: the other gives the outputs.
        outs = [Tensor(h) for h in _n.cond(cond._h, then_id, else_id)]
        if then_raised and else_raised:
            set_state(tuple(init))
            raise then_raised
        state = else_state if then_raised else then_state
        it = iter(outs)
        final = [next(it) if isinstance(v, Tensor) else v for v in state]
        set_state(tuple(final + init[nouts:]))
        return
    one_sided = {i: ('true' if isinstance(b, _Undefined) else 'false')
                 for i, (a, b) in enumerate(zip(then_state, else_state))
                 if isinstance(a, _Undefined) != isinstance(b, _Undefined)}
    if one_sided:
        # Trace again without them (the first traces stay unused).
        (then_id, then_state, _), (else_id, else_state, _) = trace(one_sided)
    _check_branch_states(outputs, then_state, else_state, one_sided)
    outs = [Tensor(h) for h in _n.cond(cond._h, then_id, else_id)]
    it = iter(outs)
    final = []
    for i, v in enumerate(then_state):
        if i in one_sided:
            final.append(_Unusable(outputs[i], 'is bound in the %s branch of a staged if only, and used after it' % one_sided[i]))
        else:
            final.append(next(it) if isinstance(v, Tensor) else v)
    set_state(tuple(final + init[nouts:]))


def _is_flag(name):
    """The converter's break/continue flags (`break_`, `continue_1`, ...)."""
    return name.startswith('break_') or name.startswith('continue_')


def _promote_flags(names, values):
    """Break and continue flags set under staged control flow become bool
    tensors (AutoGraph's lowering of break/continue in staged loops)."""
    return [_t.constant(v) if _is_flag(n) and type(v) is bool else v for n, v in zip(names, values)]


def _loop(kind, names, get_state, set_state, extra_init, test, step):
    """A staged loop: the state's tensors and `extra_init` (a counter) are
    the loop variables; `test(extra)` gives the bool scalar that continues
    it, `step(extra)` runs one iteration and gives the new `extra`."""
    init = _promote_flags(names, _as_list(get_state()))
    # Names unbound before the loop are the body's own (`err = pred - y`):
    # not carried; reading one after the loop is refused (variables.ld).
    local = [i for i, v in enumerate(init) if isinstance(v, _Undefined)]
    slots = [i for i, v in enumerate(init) if isinstance(v, Tensor)]
    n_extra = len(extra_init)
    params = [_signature(t) for t in extra_init] + [_signature(init[i]) for i in slots]

    def with_vars(tensors):
        state = list(init)
        for i, t in zip(slots, tensors[n_extra:]):
            state[i] = t
        set_state(tuple(state))
        return tensors[:n_extra]

    def cond_fn(tensors):
        c = test(with_vars(tensors))
        if not isinstance(c, Tensor) or _signature(c) != ('bool', ()):
            raise StagingError('the condition of a staged %s loop must stay a bool scalar tensor' % kind)
        return None, [c]

    def body_fn(tensors):
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
        return None, list(extra) + [state[i] for i in slots]

    cond_id, _, cond_raised = _traced(kind + '_cond', params, cond_fn)
    if cond_raised:
        # The condition raises before any iteration: no body runs.
        body_id, _, _ = _traced(kind + '_body', params, lambda tensors: (None, tensors))
    else:
        # A body that raises does so at the first iteration that runs it,
        # after the condition's ops and its own before the raise.
        body_id, _, _ = _traced(kind + '_body', params, body_fn)
    handles = [t._h for t in extra_init] + [init[i]._h for i in slots]
    outs = [Tensor(h) for h in _n.while_loop(cond_id, body_id, handles)]
    if cond_raised:
        set_state(tuple(init))
        raise cond_raised
    for i in local:
        init[i] = _Unusable(names[i])
    with_vars(outs)


def while_stmt(first_cond, test, body, get_state, set_state, names, opts):
    def step(extra):
        body()
        return extra
    _loop('while', names, get_state, set_state, [], lambda extra: test(), step)


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

        return _loop('for', names, get_state, set_state, [start], test, step)

    shape = _n.shape(iter_._h)
    if not shape:
        raise StagingError('a staged for loop over a scalar tensor')
    n = _t.constant(shape[0])

    def test(extra):
        return _and_tensor(extra[0] < n, more())

    def step(extra):
        i = extra[0]
        body(Tensor(_n.apply('Gather', None, [iter_._h, i._h])))
        return [i + 1]

    return _loop('for', names, get_state, set_state, [_t.constant(0)], test, step)


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


def _as_bool_tensor(v):
    if isinstance(v, Tensor):
        return v
    if type(v) is bool:
        return _t.constant(v)
    raise StagingError('an operand of a staged and/or is a %s, not a bool tensor' % type(v).__name__)


def if_exp(cond, if_true, if_false, expr_repr):
    return _cond_value(cond, if_true, if_false, 'conditional expression')


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


def check_side_effect(f):
    """Called by converted_call while tracing: the callee joins the guards
    of the traces in progress; Python side effects cannot be staged inside
    staged control flow (they would run once per trace)."""
    if _Guards.stack:
        _record_call(f)
    if _SideEffects.depth == 0:
        return
    if f is print:
        raise StagingError('print inside staged control flow runs once when traced, not at every execution: use sc.print outside it')
    owner = getattr(f, '__self__', None)
    if isinstance(owner, (list, dict, set)) and getattr(f, '__name__', '') in _MUTATORS:
        raise StagingError('%s.%s inside staged control flow mutates a Python object once when traced' % (type(owner).__name__, f.__name__))


_MUTATORS = frozenset(['append', 'extend', 'insert', 'pop', 'remove', 'clear', 'update', 'add', 'discard',
                       'setdefault', 'popitem', 'sort', 'reverse'])


class _Unusable(_Undefined):
    """What a name holds after staged control flow that cannot give it a
    value: bound only inside a staged loop (the original has the last
    iteration's value, or no binding), or in one branch of a staged if.
    Any use of it is refused, with why."""

    __slots__ = ('why',)

    def __init__(self, symbol_name, why='is bound only inside staged control flow and read after it'):
        _Undefined.__init__(self, symbol_name)
        self.why = why

    def _refuse(self, *args, **kwargs):
        raise StagingError("'%s' %s" % (self.symbol_name, self.why))

    __repr__ = __str__ = __bool__ = __len__ = __iter__ = __call__ = __getitem__ = _refuse
    __add__ = __radd__ = __sub__ = __rsub__ = __mul__ = __rmul__ = __truediv__ = __rtruediv__ = _refuse
    __floordiv__ = __rfloordiv__ = __mod__ = __rmod__ = __pow__ = __rpow__ = __matmul__ = __rmatmul__ = _refuse
    __neg__ = __pos__ = __abs__ = __invert__ = __lt__ = __le__ = __gt__ = __ge__ = _refuse
    __and__ = __rand__ = __or__ = __ror__ = __xor__ = __rxor__ = __index__ = __int__ = __float__ = _refuse


def _undefined_read(name, value=None):
    """A read of a local that staged control flow left without a value.
    Unbound before the statement on the path traced (`Undefined`): unbound
    in the original too, which raises UnboundLocalError here (deferred to
    execution inside a staged branch); bound on some symbolic paths only
    (`_Unusable`): refused."""
    if isinstance(value, _Unusable):
        value._refuse()
    if isinstance(value, _Undefined):
        from stagecheck.ag import variables
        raise UnboundLocalError(variables._UNBOUND.replace('stagecheck_probe_', name))
    raise StagingError("'%s' is bound only inside staged control flow and read after it" % name)


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


def _assert_not_staged(test, message):
    raise StagingError('an assert on a symbolic tensor is not staged yet')


def _eager_assert(test, message):
    if not test:
        if message is None:
            raise AssertionError
        raise AssertionError(message())


def _staged(impl, eager):
    """The implementation for symbolic first arguments, else the eager one
    (eager tensors follow Python's semantics through __bool__)."""
    return lambda x, *rest: impl(x, *rest) if _staged_value(x) else eager(x, *rest)


_dispatch.register([Tensor, SymbolicRange], {
    'undefined_read': _undefined_read,
    'if_stmt': _staged(if_stmt, lambda c, body, orelse, *_: body() if c else orelse()),
    'while_stmt': _staged(while_stmt, lambda c, test, body, *_: _eager_while(c, test, body)),
    'for_stmt': lambda it, *rest: for_stmt(it, *rest) if (_staged_value(it) or isinstance(it, SymbolicRange)) else _eager_for(it, *rest[:2]),
    'if_exp': _staged(if_exp, lambda c, t, f, _: t() if c else f()),
    'and_': _staged(and_, _eager_and),
    'or_': _staged(or_, _eager_or),
    'not_': _staged(_not, lambda v, test: not v),
    'compare': _staged(compare, _eager_compare),
    # Subscripts of tensors are the tensor's own (Index, or Gather for a
    # symbolic index); assignment into a tensor fails as Python's does.
    'get_item': lambda target, i: target[i],
    'set_item': lambda target, key, value: target.__setitem__(key, value),
    'list_append': lambda target, x: target.append(x),
    'list_pop': lambda target, i: target.pop(i),
    'assert_stmt': _staged(_assert_not_staged, _eager_assert),
})


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


# ---------------------------------------------------------------------------
# Trace guards (executor/src/tensors/guards.rs says what and why)

def _code_names(code, out):
    """The names `code` (nested code included) may read: globals, builtins
    and attributes."""
    out.update(code.co_names)
    for c in code.co_consts:
        if hasattr(c, 'co_names'):
            _code_names(c, out)
    return out


_MISSING = object()
_FunctionType = type(_code_names)
_ModuleType = type(_n)
_MethodType = type(_Tensors([]).rebuild)
_EXACT = frozenset([int, float, bool, str, bytes, complex, type(None), type(Ellipsis), type(NotImplemented), range, slice])
# The scalars the call key writes by value (call_key.rs).
_KEYED = frozenset([int, float, bool, str, type(None)])
_WRAPPERS = {property: ('fget', 'fset', 'fdel'), staticmethod: ('__func__',), classmethod: ('__func__',)}
# Class attributes every class has, never read by a trace as data.
_CLASS_BOOKKEEPING = frozenset(['__module__', '__qualname__', '__doc__', '__dict__', '__weakref__'])


class _Slots:
    __slots__ = ('slot',)


# Immutable objects of the interpreter's own types, guarded by identity.
_IDENTITY = frozenset([type(len), type([].append), type(list.append), type(object.__init__),
                       type(object().__str__), type(dict.fromkeys), type(_Slots.__dict__['slot']),
                       type(type.__dict__['__dict__']), type(_code_names.__code__)])


class _Runtime:
    """The runtime's own namespaces and classes, found before any program
    runs (`_load`, at the end of this module): the runtime's functions are
    guarded by identity, not walked."""
    namespaces = frozenset()
    classes = frozenset()

    @classmethod
    def _load(cls, namespace):
        from stagecheck import ag
        modules = [_n, ag, _t, _dispatch]
        modules.extend(v for v in ag.__dict__.values() if type(v) is _ModuleType)
        dicts = [m.__dict__ for m in modules] + [namespace]
        cls.namespaces = frozenset(id(d) for d in dicts)
        cls.classes = frozenset(v for d in dicts for v in d.values() if isinstance(v, type) and _n.is_heap_type(v))


def _user_class(c):
    return _n.is_heap_type(c) and c not in _Runtime.classes


def _builtins_of(g):
    b = g.get('__builtins__')
    if type(b) is _ModuleType:
        return _n.instance_dict(b)
    return b if type(b) is dict else None


class _Guards:
    """The guards of one trace under construction: a walk over everything
    the trace can reach by name (see guards.rs), as specs for
    `_n.guards`: `(access, parent, key, check, expected, text)`. The eager
    tensors found at a global or a closure cell when the trace begins are
    its captured inputs (`captured`): swapped for placeholders while it runs,
    read again at every call."""

    LIMIT = 4096
    DEPTH = 64
    # The collectors of the traces in progress, innermost last: a call made
    # while tracing is reported to every one (an outer trace guards what its
    # inner traces read).
    stack = []
    # Set by a planted bug (executor/src/planted.rs): an access kind whose
    # guards check nothing.
    planted_drop = None

    def __init__(self, function, args, kwargs):
        self.owner = function.__name__
        self.specs = []
        self.captured = []        # (kind, holder, key, tensor): 'global' (dict, name) or 'cell' (cell, None)
        self.capturing = True
        self.depth = 0
        self.names = set()
        self.new_names = set()
        self.named = []           # (kind, index, obj, text)
        self.named_ids = set()
        self.seen = {}            # id -> index of the guard that checked the object whole
        self.keep = []            # objects whose ids are in `seen`
        self.walked = set()       # ids of functions walked with their cells and defaults
        self.called_ids = set()
        self.roots = set()
        f = function.python_function
        i = self._whole(f, self._spec('const', None, f, 'any', None, function.__name__))
        self._function(i, f, function.__name__)
        for j, a in enumerate(args):
            self._arg('arg', None, j, a, 'argument %d' % (j + 1))
        for k in sorted(kwargs):
            self._arg('kwarg', None, k, kwargs[k], 'argument ' + k)
        self._settle()
        self.capturing = False

    # -- specs ------------------------------------------------------------

    def _spec(self, access, parent, key, check, expected, text):
        if len(self.specs) >= self.LIMIT:
            raise StagingError("the trace of '%s' reads more Python state than can be guarded (over %d values, at %s)"
                               % (self.owner, self.LIMIT, text))
        if access == _Guards.planted_drop and check != 'tensor':
            check, expected = 'any', None
        self.specs.append((access, parent, key, check, expected, text))
        return len(self.specs) - 1

    def _refuse(self, text, why):
        raise StagingError("the trace of '%s' reads %s, %s: it cannot be guarded without running its code, "
                           "so a later change could not be seen" % (self.owner, text, why))

    def _guard(self, access, parent, key, v, text):
        """A guard on `v`, found at (access, parent, key), then its parts."""
        t = type(v)
        if t in _EXACT:
            self._spec(access, parent, key, 'eq', (t, v), text)
            return
        if t is Tensor and self.capturing and access in ('global', 'cell'):
            # A trace input: the placeholder's signature, the handle passed on.
            self._spec(access, parent, key, 'tensor', _signature(v), text)
            self.captured.append((access, key[0] if access == 'global' else key, key[1] if access == 'global' else None, v))
            return
        if id(v) in self.seen:
            i = self._spec(access, parent, key, 'is', v, text)
            if t is _FunctionType and id(v) not in self.walked:
                self._function(i, v, text)
            return
        if t is Tensor or t in _IDENTITY or (t in _Runtime.classes and t is not Function and t is not _BoundFunction):
            self._spec(access, parent, key, 'is', v, text)
            return
        self.depth += 1
        if self.depth > self.DEPTH:
            self._refuse(text, 'nested more than %d deep' % self.DEPTH)
        try:
            self._parts(access, parent, key, v, t, text)
        finally:
            self.depth -= 1

    def _parts(self, access, parent, key, v, t, text):
        if t is tuple or t is list:
            i = self._whole(v, self._spec(access, parent, key, 'seq', (t, len(v)), 'len(%s)' % text))
            for j, x in enumerate(v):
                self._guard('item', i, j, x, '%s[%d]' % (text, j))
        elif t is dict:
            keys = list(v)
            for k in keys:
                if type(k) not in _EXACT:
                    self._refuse(text, 'a dict with a key of type %s' % type(k).__name__)
            i = self._whole(v, self._spec(access, parent, key, 'dict', keys, '%s.keys()' % text))
            for k in keys:
                self._guard('key', i, k, v[k], '%s[%r]' % (text, k))
        elif t is set or t is frozenset:
            for x in v:
                if type(x) not in _EXACT:
                    self._refuse(text, 'a set with an element of type %s' % type(x).__name__)
            self._whole(v, self._spec(access, parent, key, 'eq', (t, frozenset(v)), text))
        elif t is _ModuleType:
            i = self._whole(v, self._spec(access, parent, key, 'is', v, text))
            if id(_n.instance_dict(v)) not in _Runtime.namespaces:
                self._named('attrs', i, v, text)
        elif t is _FunctionType:
            i = self._whole(v, self._spec(access, parent, key, 'is', v, text))
            self._function(i, v, text)
        elif isinstance(v, type):
            i = self._whole(v, self._spec(access, parent, key, 'is', v, text))
            self._class(i, v, text)
        elif t is _MethodType:
            i = self._whole(v, self._spec(access, parent, key, 'is', v, text))
            self._guard('field', i, '__func__', v.__func__, text + '.__func__')
            self._guard('field', i, '__self__', v.__self__, text + '.__self__')
        elif t in _WRAPPERS:
            i = self._whole(v, self._spec(access, parent, key, 'is', v, text))
            for name in _WRAPPERS[t]:
                self._guard('field', i, name, getattr(v, name), '%s.%s' % (text, name))
        elif t is Function or t is _BoundFunction:
            i = self._whole(v, self._spec(access, parent, key, 'is', v, text))
            d = _n.instance_dict(v)
            for name in (('python_function',) if t is Function else ('_function', '_obj')):
                self._guard('attr', i, name, d[name], '%s.%s' % (text, name))
        elif _user_class(t):
            self._instance(access, parent, key, v, text)
        else:
            self._refuse(text, 'a %s' % t.__name__)

    def _whole(self, v, i):
        self.seen[id(v)] = i
        self.keep.append(v)
        return i

    def _arg(self, access, parent, key, v, text):
        """An argument: the call key holds its tensors' signatures, its
        scalars and the identity of anything else; guards hold the rest."""
        t = type(v)
        if t is Tensor or t in _KEYED:
            return
        if t is tuple or t is list:
            i = self._spec(access, parent, key, 'any', None, text)
            for j, x in enumerate(v):
                self._arg('item', i, j, x, '%s[%d]' % (text, j))
            return
        self._guard(access, parent, key, v, text)

    def _class(self, i, cls, text):
        """A class: all its attributes (its methods may run implicitly)."""
        if not _user_class(cls):
            return
        if type(cls) is not type:
            self._refuse(text, 'a class with the metaclass %s' % type(cls).__name__)
        done = set(_CLASS_BOOKKEEPING)
        for c in cls.__mro__:
            if not _user_class(c):
                continue
            for name in list(c.__dict__):
                if name not in done:
                    done.add(name)
                    self._guard('cattr', i, name, self._class_lookup(cls, name), '%s.%s' % (text, name))

    @staticmethod
    def _class_lookup(cls, name):
        for c in cls.__mro__:
            d = c.__dict__
            if name in d:
                return d[name]
        return _MISSING

    def _instance(self, access, parent, key, v, text):
        cls = type(v)
        for c in cls.__mro__:
            if c is not object and not _user_class(c):
                self._refuse(text, 'an instance of %s, a subclass of %s' % (cls.__name__, c.__name__))
        if _n.instance_dict(v) is None:
            self._refuse(text, 'an instance of %s without a __dict__' % cls.__name__)
        i = self._whole(v, self._spec(access, parent, key, 'type', cls, 'type(%s)' % text))
        self._guard('class', i, None, cls, 'type(%s)' % text)
        self._named('instance', i, v, text)

    def _function(self, i, f, text):
        """A function at guard `i`: what its code may read, its cells,
        defaults and attributes."""
        self.walked.add(id(f))
        if id(f.__globals__) in _Runtime.namespaces:
            return
        self._code(f)
        if f.__defaults__ is not None:
            self._guard('field', i, '__defaults__', f.__defaults__, text + '.__defaults__')
        if f.__kwdefaults__ is not None:
            self._guard('field', i, '__kwdefaults__', f.__kwdefaults__, text + '.__kwdefaults__')
        for name, cell in zip(f.__code__.co_freevars, f.__closure__ or ()):
            if id(cell) in self.roots:
                continue
            self.roots.add(id(cell))
            self.keep.append(cell)
            try:
                v = cell.cell_contents
            except ValueError:
                self._spec('cell', None, cell, 'missing', None, name)
                continue
            self._guard('cell', None, cell, v, name)
        self._named('attrs', i, f, text)

    def _code(self, f):
        self.new_names |= _code_names(f.__code__, set()) - self.names
        g = f.__globals__
        self._named('globals', None, (g, _builtins_of(g)), '')

    def _named(self, kind, i, obj, text):
        """An object whose attributes (or, for a namespace, entries) are
        guarded for every name code may read."""
        key = id(obj[0]) if kind == 'globals' else id(obj)
        if (kind, key) in self.named_ids:
            return
        self.named_ids.add((kind, key))
        self.keep.append(obj)
        entry = (kind, i, obj, text)
        self.named.append(entry)
        for name in sorted(self.names):
            self._name(entry, name)

    def _name(self, entry, name):
        kind, i, obj, text = entry
        if kind == 'globals':
            g, b = obj
            if (id(g), name) in self.roots:
                return
            self.roots.add((id(g), name))
            v = g.get(name, _MISSING)
            if v is not _MISSING:
                self._guard('global', None, (g, name), v, name)
            elif b is not None and name in b:
                self._spec('global', None, (g, name), 'missing', None, name)
                if (id(b), name) not in self.roots:
                    self.roots.add((id(b), name))
                    self._guard('global', None, (b, name), b[name], name)
            return
        d = _n.instance_dict(obj)
        v = _MISSING if d is None else d.get(name, _MISSING)
        path = '%s.%s' % (text, name)
        if v is not _MISSING:
            self._guard('attr', i, name, v, path)
        elif kind == 'instance':
            cls = type(obj)
            if self._class_lookup(cls, name) is not _MISSING or self._class_lookup(cls, '__getattr__') is not _MISSING:
                self._spec('attr', i, name, 'missing', None, path)

    def _settle(self):
        """Walks the names found since the last settle, over every object
        walked so far, until no new name appears."""
        while self.new_names:
            new = sorted(self.new_names)
            self.names.update(new)
            self.new_names = set()
            for entry in list(self.named):
                for name in new:
                    self._name(entry, name)

    def called(self, f):
        """A call made while tracing (converted_call): what the callee's code
        may read. A callee reached by no name (made during the trace, or
        returned by a call) has its globals walked, not its cells: they hold
        what the trace computed."""
        t = type(f)
        if t is _MethodType:
            f = f.__func__
            t = type(f)
        if t is _BoundFunction:
            f = f._function
            t = type(f)
        if t is Function:
            f = f.python_function
            t = type(f)
        if t is _FunctionType:
            if id(f) in self.called_ids or id(f) in self.walked:
                return
            self.called_ids.add(id(f))
            self.keep.append(f)
            if id(f.__globals__) not in _Runtime.namespaces:
                self._code(f)
        elif isinstance(f, type) and _user_class(f) and id(f) not in self.seen:
            self._guard('const', None, f, f, f.__name__)
        else:
            return
        self._settle()

    def finish(self):
        self._settle()
        return _n.guards(self.specs, Tensor)

    def captured_now(self):
        """The captured values as they are now (a recursive call while tracing)."""
        out = []
        for kind, holder, k, _ in self.captured:
            out.append(holder[k] if kind == 'global' else holder.cell_contents)
        return out


def _record_call(f):
    for collector in _Guards.stack:
        collector.called(f)


# ---------------------------------------------------------------------------
# sc.function

class Function:
    """A function marked for staging (`tf.function`)."""

    def __init__(self, python_function, options):
        self.python_function = python_function
        self.options = options
        # The trace cache: call key (call_key.rs) -> [(guards, graph function
        # id, output template)], tried in order (guards.rs).
        self._cache = {}
        # What the native call path reads: a plain tuple.
        self._native = (self._cache, Tensor)
        # Traces in progress (key -> (library slot, guessed result type)).
        self._pending = {}
        self.__name__ = getattr(python_function, '__name__', 'function')
        self.__doc__ = getattr(python_function, '__doc__', None)
        self.__wrapped__ = python_function

    def __get__(self, obj, objtype=None):
        if obj is None:
            return self
        return _BoundFunction(self, obj)

    def __call__(self, *args, **kwargs):
        if _n.mode() != 'staged':
            return self.python_function(*args, **kwargs)
        # The common call, natively (executor/src/tensors/call_key.rs): here,
        # not in _staged_call, to spare every call a Python frame.
        hit, value = _n.staged_call(self._native, args, kwargs)
        if hit:
            return value
        return self._staged_call(args, kwargs, value)

    def _staged_call(self, args, kwargs, key):
        """A call no cached trace's guards admit: traced now (a retrace when
        the key has traces already), filed under `key`."""
        arguments = _Tensors((args, sorted(kwargs.items())))
        pending = self._pending.get(key)
        if pending is not None:
            captured = pending[2].captured_now()
            return self._recursive_call(key, pending, [t._h for t in arguments.tensors + captured])
        entries = self._cache.get(key)
        if entries:
            why = _n.guards_check(entries[-1][0], args, kwargs)
            if type(why) is str:
                _n.note_retrace(self.__name__, why)
        guards, fid, outputs, captured = self._trace_with_guesses(key, arguments, args, kwargs)
        self._cache.setdefault(key, []).append((guards, fid, outputs.template))
        handles = [t._h for t in arguments.tensors] + [c[3]._h for c in captured]
        results = [Tensor(h) for h in _n.call(fid, handles)]
        return outputs.rebuild(results)

    def _recursive_call(self, key, pending, handles):
        """A call of this function inside its own trace (recursion on a staged
        condition): a call node of the function being built, whose result is
        the guess being tried (checked when the trace ends)."""
        fid, guess, _ = pending
        if guess is None:
            raise _NeedsGuess(key)
        return Tensor(_n.call(fid, handles, [guess])[0])

    def _trace_with_guesses(self, key, arguments, args, kwargs):
        """Traces; a recursive call needs the function's result type before
        the trace gives it, so each tensor argument's (dtype, shape) is tried
        as the type of a single tensor result, and kept only if the trace
        ends with exactly that result."""
        guesses = [None]
        for t in arguments.tensors:
            if _signature(t) not in guesses:
                guesses.append(_signature(t))
        for guess in guesses:
            try:
                guards, fid, outputs, captured = self._trace(key, arguments, guess, args, kwargs)
            except _NeedsGuess as e:
                if e.key != key:
                    raise
                continue
            if guess is None or isinstance(outputs, _Raising) or [_signature(t) for t in outputs.tensors] == [guess] and outputs.template[0] == 't':
                return guards, fid, outputs, captured
        raise StagingError("the result type of the recursive staged function '%s' could not be inferred "
                           "(a recursive call must return one tensor of the type of one of its tensor arguments)" % self.__name__)

    def _trace(self, key, arguments, guess, call_args, call_kwargs):
        f = self.python_function
        # The guards walk what the trace can read as it is now, before the
        # trace runs; the tensors at globals and cells it finds are inputs.
        collector = _Guards(self, call_args, call_kwargs)
        captured = collector.captured
        params = [_signature(t) for t in arguments.tensors] + [_signature(c[3]) for c in captured]
        handles = _n.trace_begin(self.__name__, params, True)
        self._pending[key] = (_n.trace_current(), guess, collector)
        n_args = len(arguments.tensors)
        symbolic = [Tensor(h) for h in handles]
        saved = []
        saved_check = _dispatch.call_check
        # A print while tracing would run once per trace, not once per call.
        _dispatch.call_check = _refuse_print
        _Guards.stack.append(collector)
        done = False
        try:
            for (kind, holder, k, v), s in zip(captured, symbolic[n_args:]):
                saved.append((kind, holder, k, v))
                if kind == 'global':
                    holder[k] = s
                else:
                    holder.cell_contents = s
            args, kwargs = arguments.rebuild(symbolic[:n_args])
            # An exception escaping every path is raised at the call, after
            # the graph's ops before it (as the original's would have run).
            result, raised = _run_path(lambda: f(*args, **dict(kwargs)))
            if raised is None:
                outputs = _Tensors(result)
                outputs.refuse_unusable()
                fid = _n.trace_end([t._h for t in outputs.tensors])
            else:
                outputs = _Raising(raised)
                fid = _end_raising(raised.site, raised.exc, False, [] if guess is None else [guess])
            done = True
        finally:
            if not done:
                _n.trace_abort()
            _Guards.stack.pop()
            _dispatch.call_check = saved_check
            del self._pending[key]
            for kind, holder, k, v in saved:
                if kind == 'global':
                    holder[k] = v
                else:
                    holder.cell_contents = v
        return collector.finish(), fid, outputs, captured


class _Raising:
    """The outputs of a trace that always raises: none. Its template
    (`('raise', thunk)`) is rebuilt only where its graph did not raise, as a
    call node inside another trace: that path raises from there on."""

    tensors = ()

    def __init__(self, raised):
        def thunk():
            if _n.trace_current() is None:
                raise StagingError('internal error: the graph of a staged function that always raises returned')
            raise _PathRaises(raised.site, raised.exc)
        self.template = ('raise', thunk)

    def rebuild(self, tensors):
        self.template[1]()


class _NeedsGuess(Exception):
    """A recursive call before the function's result type is known."""

    def __init__(self, key):
        Exception.__init__(self, key)
        self.key = key


def _refuse_print(f):
    if f is print:
        raise StagingError('print inside a staged function runs once when traced, not at every call: use sc.print')
    check_side_effect(f)


class _BoundFunction:
    def __init__(self, function, obj):
        self._function = function
        self._obj = obj

    def __call__(self, *args, **kwargs):
        return self._function(self._obj, *args, **kwargs)


def function(func=None, **options):
    """Marks `func` for staging. Usable bare (`@sc.function`) or with options."""
    if func is None:
        return lambda f: function(f, **options)
    return Function(func, options)


class device:
    """`with sc.device('gpu'):` (TensorFlow's `tf.device`, seed 002 §4.4):
    the graphs of staged calls inside run on the GPU, values kept on the
    device between nodes, conds and loops decided on the host. Eager ops
    run on the CPU whatever the device. Without a Vulkan adapter, graphs run
    on the CPU (soft placement: the program computes the same). Names:
    'cpu', 'gpu', '/gpu:0', '/device:GPU:0'."""

    def __init__(self, name):
        self._name = name
        self._saved = []

    def __enter__(self):
        self._saved.append(_n.set_device(self._name))
        return self

    def __exit__(self, *exc):
        _n.set_device(self._saved.pop())
        return False


_Runtime._load(globals())

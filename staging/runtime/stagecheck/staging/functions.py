"""`sc.function` (`tf.function`): the staged call, its trace cache (keyed by
staging/src/tensors/call_key.rs, guarded by guards.py) and the trace."""

import _stagecheck_tensor as _n
from stagecheck import tensor as _t
from stagecheck.ag import dispatch as _dispatch
from stagecheck.staging.structures import Tensor, _Tensors, _signature
from stagecheck.staging.raises import _PathRaises, _NeedsGuess, _run_path, _end_raising
from stagecheck.staging.guards import _Guards
from stagecheck.staging.side_effects import check_side_effect
from stagecheck import gradients as _grad

StagingError = _t.StagingError


def _arguments(args, kwargs):
    """A call's arguments as a structure: its tensors, in the order of the
    trace's parameters, are in the order the call key (call_key.rs) passes
    their handles on the fast path: positional first, then keyword
    arguments by name, tuples and lists item by item (tested against each
    other: executor/tests/call_key.rs)."""
    return _Tensors((args, sorted(kwargs.items())))


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
        if _t._tape_hook is not None:  # a tape records (gradients/): an attribute test, no call
            return self._taped_call(args, kwargs)
        # The common call, natively (staging/src/tensors/call_key.rs): here,
        # not in _staged_call, to spare every call a Python frame.
        hit, value = _n.staged_call(self._native, args, kwargs)
        if hit:
            return value
        return self._staged_call(args, kwargs, value)

    def _staged_call(self, args, kwargs, key):
        """A call no cached trace's guards admit: traced now (a retrace when
        the key has traces already), filed under `key`."""
        arguments = _arguments(args, kwargs)
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

    def _taped_call(self, args, kwargs):
        """A call while a gradient tape records (gradients/): traced now with
        a sub-tape, its graph function also returning what the backward pass
        needs (TF Eager's forward function); not cached."""
        key = _n.call_key(args, kwargs, Tensor)
        if key in self._pending:
            raise StagingError("a recursive call of the staged function '%s' under a gradient tape is not "
                               "differentiated yet" % self.__name__)
        arguments = _arguments(args, kwargs)
        taped = _grad.FunctionRecording()
        with taped:
            try:
                _, fid, outputs, captured = self._trace(key, arguments, None, args, kwargs, taped)
            except _NeedsGuess:
                raise StagingError("a recursive call of the staged function '%s' under a gradient tape is not "
                                   "differentiated yet" % self.__name__)
        inputs = list(arguments.tensors) + [c[3] for c in captured]
        results = [Tensor(h) for h in _n.call(fid, [t._h for t in inputs])]
        return outputs.rebuild(taped.finish(inputs, results))

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

    def _trace(self, key, arguments, guess, call_args, call_kwargs, taped=None):
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
        if taped is not None:
            taped.params(symbolic)
        saved = []
        saved_check = _dispatch.call_check
        # Callees join the guards (a print is a host node: printing.py).
        _dispatch.call_check = check_side_effect
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
                extras = [] if taped is None else taped.extras(outputs.tensors)
                fid = _n.trace_end([t._h for t in outputs.tensors] + extras)
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

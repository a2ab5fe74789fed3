"""Staged raises: an exception raised while tracing one path becomes a raise
node of that path (`_defer`), raised at execution as a new exception like
the traced one (`_fresh_exception`, called natively by tensors/module.rs);
where raising later is not what the program does, a StagingError."""

import _stagecheck_tensor as _n
from stagecheck import tensor as _t

StagingError = _t.StagingError


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
    if _raise_line(exc) is None:
        # Raised by the runtime for the program (a staged assert's
        # AssertionError): at the line of the program running it.
        _n.program_traceback(exc)
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


class _NeedsGuess(Exception):
    """A recursive call before the function's result type is known."""

    def __init__(self, key):
        Exception.__init__(self, key)
        self.key = key

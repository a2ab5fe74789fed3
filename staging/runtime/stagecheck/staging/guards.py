"""Trace guards (staging/src/tensors/guards.rs says what and why): the walk
over everything a trace can read by name, as specs for the native guards."""

import _stagecheck_tensor as _n
from stagecheck import tensor as _t
from stagecheck.ag import dispatch as _dispatch
from stagecheck.staging.structures import Tensor, _Tensors, _signature
# Function and _BoundFunction, read at call time (functions.py imports this module).
from stagecheck.staging import functions as _functions

StagingError = _t.StagingError


_MISSING = object()
_FunctionType = type(lambda: None)
_CodeType = type((lambda: None).__code__)
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
                       type(type.__dict__['__dict__']), _CodeType])


class _Runtime:
    """The runtime's own namespaces and classes, found before any program
    runs (`_load`, at the end of staging/__init__.py): the runtime's
    functions are guarded by identity, not walked."""
    namespaces = frozenset()
    classes = frozenset()

    @classmethod
    def _load(cls):
        from stagecheck import ag, staging, gradients
        modules = [_n, ag, _t, _dispatch, staging, gradients]
        for package in (ag, staging, gradients):
            modules.extend(v for v in package.__dict__.values() if type(v) is _ModuleType)
        dicts = [m.__dict__ for m in modules]
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
        self.codes = set()        # ids of code objects walked (kept)
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
        if t is Tensor or t in _IDENTITY or (t in _Runtime.classes and t is not _functions.Function and t is not _functions._BoundFunction):
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
        elif t is _functions.Function or t is _functions._BoundFunction:
            i = self._whole(v, self._spec(access, parent, key, 'is', v, text))
            d = _n.instance_dict(v)
            for name in (('python_function',) if t is _functions.Function else ('_function', '_obj')):
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
        code = f.__code__
        if id(code) not in self.codes:
            self.codes.add(id(code))
            self.keep.append(code)
            # Its names and its nested code's, walked once a run (guards.rs).
            self.new_names |= _n.code_names(code) - self.names
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
        self._names(entry, sorted(self.names))

    def _names(self, entry, names):
        """Guards `entry`'s value (or absence) at each of `names`, in order:
        one loop, not a call per name (a trace walks thousands)."""
        kind, i, obj, text = entry
        roots = self.roots
        if kind == 'globals':
            g, b = obj
            gid = id(g)
            for name in names:
                if (gid, name) in roots:
                    continue
                roots.add((gid, name))
                v = g.get(name, _MISSING)
                if v is not _MISSING:
                    self._guard('global', None, (g, name), v, name)
                elif b is not None and name in b:
                    self._spec('global', None, (g, name), 'missing', None, name)
                    if (id(b), name) not in roots:
                        roots.add((id(b), name))
                        self._guard('global', None, (b, name), b[name], name)
            return
        # The walk runs no code of the program: the object keeps its dict.
        d = _n.instance_dict(obj)
        for name in names:
            v = _MISSING if d is None else d.get(name, _MISSING)
            if v is not _MISSING:
                self._guard('attr', i, name, v, '%s.%s' % (text, name))
            elif kind == 'instance':
                cls = type(obj)
                if self._class_lookup(cls, name) is not _MISSING or self._class_lookup(cls, '__getattr__') is not _MISSING:
                    self._spec('attr', i, name, 'missing', None, '%s.%s' % (text, name))

    def _settle(self):
        """Walks the names found since the last settle, over every object
        walked so far, until no new name appears."""
        while self.new_names:
            new = sorted(self.new_names)
            self.names.update(new)
            self.new_names = set()
            for entry in list(self.named):
                self._names(entry, new)

    def called(self, f):
        """A call made while tracing (converted_call): what the callee's code
        may read. A callee reached by no name (made during the trace, or
        returned by a call) has its globals walked, not its cells: they hold
        what the trace computed."""
        # Each callable once a trace (kept, so no other takes its id): a
        # trace calls the same few many times.
        if id(f) in self.called_ids:
            return
        self.called_ids.add(id(f))
        self.keep.append(f)
        given = f
        t = type(f)
        if t is _MethodType:
            f = f.__func__
            t = type(f)
        if t is _functions._BoundFunction:
            f = f._function
            t = type(f)
        if t is _functions.Function:
            f = f.python_function
            t = type(f)
        if t is _FunctionType:
            if f is not given:
                # The function under a method, a bound or a staged one.
                if id(f) in self.called_ids:
                    return
                self.called_ids.add(id(f))
                self.keep.append(f)
            if id(f) in self.walked:
                return
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


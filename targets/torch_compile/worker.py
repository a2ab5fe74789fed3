"""The `torch-compile` target's worker (targets/README.md): PyTorch's
`torch.compile` (TorchDynamo and a backend) under test, on plain Python
programs and on stagecheck's tensor programs, whose `sc` API a shim maps
onto PyTorch (the `stagecheck` module a program imports here: `sc.constant`
is `torch.tensor`, `sc.reduce_sum` `torch.sum`, ...; `@sc.function` is
`torch.compile` in the compiled mode and leaves the function as it is in the
original; `sc.print` is Python's print; `Tensor.numpy()` gives the nested
lists or the scalar, this venv having no NumPy). A staged `if` on a tensor is
data-dependent control flow Dynamo must break the graph on.

Modes:
- `original`: the program as written, under this CPython.
- `compiled`: every function defined at the top level of the module (a
  `def` directly in the module body, or in a top-level `if`/`try`/`with`
  body) is replaced, right after its definition, by
  `torch.compile(f, backend=B)` (`B`: `eager` unless the target was named
  `torch-compile:aot_eager`); Dynamo inlines what it calls. Config:
  `allow_empty_graphs` (else a function without tensor ops is never traced
  and nothing is tested), `suppress_errors = False` (an internal error
  reaches us instead of a silent fallback to CPython).

What a run reports besides its outcome (Dynamo's `ConvertFrame`, wrapped):
- Dynamo's own failure leaving its frame conversion (an assertion in its
  code, `InternalTorchDynamoError`, `TorchRuntimeError`,
  `BackendCompilerFailed`; not `Unsupported`/`UserError`, nor an op's error
  passing through) is the compiler's crash: the reply is `crashed`,
  whatever the program made of the exception (it may catch it);
- a run in which Dynamo converted no frame tested nothing: `fell_back` with
  the reason `not tested - ...` (Dynamo's own `Unsupported` reason where it
  gave up on a whole frame), so it counts as a refusal where it agrees and
  never as agreement.

Every program runs in a child forked from the worker (the kit's `serve`),
so nothing Dynamo caches or guards on survives a program; the child resets
Dynamo anyway before the compiled run (`torch._dynamo.reset()`).

Runs: stagecheck passes targets/python/stagecheck_target.py and this file,
joined, to the venv's python (`-c`), with the backend as its argument; see
src/targets/mod.rs.
"""

import contextlib
import logging
import re
import warnings

warnings.simplefilter("ignore")  # NumPy's absence, Dynamo's advice: never a program's output

import torch  # noqa: E402
import torch._dynamo  # noqa: E402
from torch._dynamo import convert_frame, exc as dynamo_exc  # noqa: E402
from torch._dynamo import aot_compile, codegen, pgo, utils as dynamo_utils  # noqa: E402
from torch._dynamo.utils import counters  # noqa: E402

logging.getLogger("torch").setLevel(logging.CRITICAL)
torch._dynamo.config.allow_empty_graphs = True
torch._dynamo.config.suppress_errors = False
# Dynamo's profile of dynamic shapes names a code object by its file's CRC,
# reading the file by the path the program was given (the jail may not let
# it, and its bytes are not the run's): the path alone, as Dynamo does for a
# file that does not exist.
pgo._hash_containing_file = lambda filepath: filepath

real_import = builtins.__import__
BACKEND = sys.argv[1] if len(sys.argv) > 1 and sys.argv[1] else "eager"
COMPILE = "__stagecheck_torch_compile__"


class Run:
    """What Dynamo did during one run: frames converted, frames it gave up
    on (`Unsupported`), its own failures, the compiled functions."""

    current = None

    def __init__(self, mode):
        self.mode = mode
        self.unsupported = []
        self.crashes = []
        self.alias = {}
        self.keep = []
        self.installed = set()

    def minted(self, name):
        """A global Dynamo installed or minted (left out of the globals)."""
        return name in self.installed or name.startswith(aot_compile._MINTED_GLOBAL_PREFIXES)


def _first_line(text):
    return (str(text).strip().splitlines() or [""])[0][:300]


def _user_line(exception):
    """The program's innermost line in an exception's traceback (0: none)."""
    line, tb = 0, exception.__traceback__
    while tb is not None:
        if tb.tb_frame.f_code.co_filename == Run.path:
            line = tb.tb_lineno
        tb = tb.tb_next
    return line


def _frame_line(frame, e):
    return frame.f_code.co_firstlineno if frame.f_code.co_filename == Run.path else _user_line(e)


def _dynamo_failure(e):
    """Dynamo's own failure, not the error of a program's op passing through
    it (an IndexError of a tensor op raised while Dynamo traces it is the
    program's, compared as its outcome): Dynamo's exceptions (internal
    errors, TorchRuntimeError wrapping what an op raised, a backend's
    failure) and assertions failing in Dynamo's own code."""
    if isinstance(e, dynamo_exc.TorchDynamoException):
        return True
    tb, last = e.__traceback__, None
    while tb is not None:
        last, tb = tb, tb.tb_next
    return isinstance(e, AssertionError) and last is not None and "/torch/_dynamo/" in last.tb_frame.f_code.co_filename


def _recording(convert, soft):
    """Dynamo's frame conversion `convert`, what escapes it recorded for the
    run's reply: inside, the `Unsupported` it then swallows (the frame runs
    as written: `soft`); outside, what reaches the program (its crash)."""
    def converting(self, frame, *args, **kwargs):
        try:
            return convert(self, frame, *args, **kwargs)
        except Exception as e:
            run = Run.current
            gave_up = isinstance(e, (dynamo_exc.Unsupported, dynamo_exc.UserError))
            if run is not None and soft and gave_up:
                run.unsupported.append((reason(e), _frame_line(frame, e)))
            elif run is not None and not soft and not gave_up and _dynamo_failure(e):
                run.crashes.append((f"{type(e).__name__}: {_first_line(e)}", _frame_line(frame, e)))
            raise
    return converting


convert_frame.ConvertFrameAssert.__call__ = _recording(convert_frame.ConvertFrameAssert.__call__, soft=True)
convert_frame.ConvertFrame.__call__ = _recording(convert_frame.ConvertFrame.__call__, soft=False)


_create_cleanup = dynamo_utils.CleanupHook.create
_globally_cached = codegen.PyCodegen.setup_globally_cached


def _installing(scope, name, value):
    if Run.current is not None:
        Run.current.installed.add(name)
    return _create_cleanup(scope, name, value)


def _caching(self, name, value):
    instructions = _globally_cached(self, name, value)
    if Run.current is not None:
        Run.current.installed.add(instructions[-1].argval)
    return instructions


# The globals Dynamo installs in the program's module (compiled graphs,
# resume functions, the builtins dict it guards on) are its implementation,
# recorded to leave them out of the compiled run's globals (`Run.minted`:
# never rendered, so never charged to the rendering's budget); so are the
# names it mints by its own list of prefixes (module aliases `__import_*`).
dynamo_utils.CleanupHook.create = staticmethod(_installing)
codegen.PyCodegen.setup_globally_cached = _caching


_DTYPES = {"float16": torch.float16, "float32": torch.float32, "float64": torch.float64, "int8": torch.int8,
           "int16": torch.int16, "int32": torch.int32, "int64": torch.int64, "uint8": torch.uint8, "bool": torch.bool}


def _tensor(value, dtype=None):
    if isinstance(value, Variable):
        value = value.read_value()
    if isinstance(value, torch.Tensor):
        return value if dtype is None else value.to(dtype)
    if isinstance(value, (list, tuple)) and any(isinstance(v, (torch.Tensor, Variable)) for v in value):
        return torch.stack([_tensor(v, dtype) for v in value])
    t = torch.tensor(value, dtype=dtype)
    # stagecheck's (and TensorFlow's) Python ints make int32 tensors.
    return t.to(torch.int32) if dtype is None and t.dtype == torch.int64 else t


def _int32(t, dtype):
    return t.to(torch.int32) if dtype is None and t.dtype == torch.int64 else t


def _axis(f):
    """A reduction with TensorFlow's signature (`axis`, `keepdims`)."""
    def reduce(x, axis=None, keepdims=False):
        x = _tensor(x)
        return f(x) if axis is None else f(x, dim=axis, keepdim=keepdims)
    return reduce


def _mean(x, dim=None, keepdim=False):
    """TensorFlow's mean: of an int tensor, the sum divided toward zero in
    its dtype (torch.mean refuses ints; every such program would raise)."""
    if x.is_floating_point():
        return torch.mean(x) if dim is None else torch.mean(x, dim=dim, keepdim=keepdim)
    total = torch.sum(x) if dim is None else torch.sum(x, dim=dim, keepdim=keepdim)
    count = x.numel() if dim is None else x.shape[dim]
    return torch.div(total, max(count, 1), rounding_mode="trunc").to(x.dtype)


class Variable:
    """`sc.Variable`: a mutable holder of a tensor (its attribute store is
    what Dynamo must not lose)."""

    def __init__(self, initial_value, dtype=None):
        self._value = _tensor(initial_value, dtype).clone()

    def read_value(self):
        return self._value

    value = read_value

    def assign(self, v):
        self._value = _tensor(v, self._value.dtype).clone()
        return self

    def assign_add(self, v):
        return self.assign(self._value + _tensor(v))

    def assign_sub(self, v):
        return self.assign(self._value - _tensor(v))

    def numpy(self):
        return self._value.numpy()

    dtype = property(lambda self: self._value.dtype)
    shape = property(lambda self: self._value.shape)

    def __repr__(self):
        return f"<sc.Variable {self._value!r}>"


def _delegate(name):
    def method(self, *args):
        return getattr(self._value, name)(*[a._value if isinstance(a, Variable) else a for a in args])
    return method


for _name in ("add", "radd", "sub", "rsub", "mul", "rmul", "truediv", "rtruediv", "floordiv", "rfloordiv", "mod",
              "rmod", "pow", "rpow", "matmul", "rmatmul", "neg", "abs", "lt", "le", "gt", "ge", "eq", "ne", "bool",
              "getitem", "and", "rand", "or", "ror", "xor", "rxor", "invert", "float", "int", "index", "len"):
    setattr(Variable, f"__{_name}__", _delegate(f"__{_name}__"))
Variable.__hash__ = object.__hash__


def _host(t):
    """`Tensor.numpy()` without NumPy: the nested lists, or the scalar."""
    t = t.detach()
    return t.item() if t.dim() == 0 else t.tolist()


torch.Tensor.numpy = _host


def _transpose(x, perm=None):
    x = _tensor(x)
    return x.permute(*(perm if perm is not None else reversed(range(x.dim()))))


def _py_function(func, inp, Tout=None):
    out = func(*inp)
    return _tensor(out, _DTYPES.get(getattr(Tout, "name", None), Tout) if Tout is not None else None)


def _sc_function(f=None, **options):
    if f is None:
        return lambda g: _sc_function(g, **options)
    if Run.current is not None and Run.current.mode == "compiled":
        return compile_function(f)
    return f


def _make_shim():
    sc = types.ModuleType("stagecheck")
    sc.__dict__.update(_DTYPES)
    sc.constant = sc.convert_to_tensor = _tensor
    sc.zeros = lambda shape, dtype=torch.float32: torch.zeros(list(shape) if not isinstance(shape, int) else [shape], dtype=dtype)
    sc.ones = lambda shape, dtype=torch.float32: torch.ones(list(shape) if not isinstance(shape, int) else [shape], dtype=dtype)
    sc.range = lambda start, limit=None, delta=1, dtype=None: _int32(
        torch.arange(start, dtype=dtype) if limit is None else torch.arange(start, limit, delta, dtype=dtype), dtype)
    sc.eye = lambda n, dtype=torch.float32: torch.eye(n, dtype=dtype)
    sc.cast = lambda x, dtype: _tensor(x).to(dtype)
    sc.reshape = lambda x, shape: torch.reshape(_tensor(x), list(shape))
    sc.transpose = _transpose
    sc.matmul = lambda a, b: torch.matmul(_tensor(a), _tensor(b))
    sc.reduce_sum, sc.reduce_mean, sc.reduce_prod = _axis(torch.sum), _axis(_mean), _axis(torch.prod)
    sc.reduce_max, sc.reduce_min = _axis(torch.amax), _axis(torch.amin)
    sc.argmax = lambda x, axis=0: torch.argmax(_tensor(x), dim=axis)
    sc.argmin = lambda x, axis=0: torch.argmin(_tensor(x), dim=axis)
    sc.where = lambda c, x, y: torch.where(_tensor(c), x.read_value() if isinstance(x, Variable) else x,
                                           y.read_value() if isinstance(y, Variable) else y)
    sc.concat = lambda values, axis: torch.cat([_tensor(v) for v in values], dim=axis)
    sc.stack = lambda values, axis=0: torch.stack([_tensor(v) for v in values], dim=axis)
    for name in ("exp", "log", "sqrt", "tanh", "sigmoid", "abs", "square", "sign", "floor", "ceil", "round"):
        setattr(sc, name, (lambda op: lambda x: op(_tensor(x)))(getattr(torch, name)))
    sc.maximum = lambda a, b: torch.maximum(_tensor(a), _tensor(b))
    sc.minimum = lambda a, b: torch.minimum(_tensor(a), _tensor(b))
    sc.nn = types.SimpleNamespace(relu=torch.relu, sigmoid=torch.sigmoid, softmax=lambda x: torch.softmax(_tensor(x), dim=-1))
    sc.Variable = Variable
    sc.Tensor = torch.Tensor
    sc.py_function = _py_function
    sc.function = _sc_function
    sc.device = lambda name: contextlib.nullcontext()
    sc.print = print
    sc.StagingError = type("StagingError", (Exception,), {})
    return sc


SHIM = _make_shim()


def render_tensor(renderer, obj):
    """A torch tensor as stagecheck's `Tensor` value (dtype, shape, nested
    elements) by value; a Variable as its value."""
    if isinstance(obj, Variable):
        obj = obj.read_value()
    if not isinstance(obj, torch.Tensor):
        return None

    def element(x):
        if isinstance(x, list):
            return {"kind": "list", "v": [element(y) for y in x]}
        if isinstance(x, bool):
            return {"kind": "bool", "v": x}
        if isinstance(x, int):
            return {"kind": "int", "v": str(x)}
        return {"kind": "float", "v": struct.unpack("<Q", struct.pack("<d", float(x)))[0]}

    t = obj.detach()
    dtype = str(t.dtype).removeprefix("torch.")
    if t.numel() > MAX_ELEMENTS_RENDERED:
        values = {"kind": "list", "v": [element(x) for x in t.reshape(-1)[:MAX_ELEMENTS_RENDERED].tolist()] + [{"kind": "truncated"}]}
    else:
        values = element(t.tolist())
    return {"kind": "tensor", "v": {"dtype": dtype, "shape": list(t.shape), "values": values}}


# executor/src/tensors/mod.rs's MAX_ELEMENTS_RENDERED, as tf_function/worker.py.
MAX_ELEMENTS_RENDERED = 4096


def reason(e):
    """An Unsupported's reason, headed by what it gave up on with numbers
    taken out (the report counts refusals by the text before the colon)."""
    message = _first_line(e)
    head = re.sub(r"\d+", "N", re.split(r"[:\n(]", message, maxsplit=1)[0].strip())[:80]
    return f"{type(e).__name__} - {head}: {message}"


def compile_function(f):
    import types as _types
    if not isinstance(f, _types.FunctionType):
        return f
    compiled = torch.compile(f, backend=BACKEND)
    # The wrapper shows the function's defaults (the same objects) as it
    # shows its name (functools.wraps copies no defaults: a program reading
    # `f.__defaults__` read None, the harness's doing, not Dynamo's).
    compiled.__defaults__, compiled.__kwdefaults__ = f.__defaults__, f.__kwdefaults__
    Run.current.alias[id(compiled)] = f
    Run.current.keep.append(compiled)
    return compiled


def run_compiled(code, source, path, mode, stdout_limit):
    extra = {}
    if mode == "compiled":
        code = compile_wrapped(source, path, COMPILE)
        extra[COMPILE] = compile_function
        torch._dynamo.reset()
        counters.clear()
    elif mode != "original":
        return {"skipped": f"the torch-compile target has no mode {mode!r} (original, compiled)"}
    current = Run.current = Run(mode)
    Run.path = path
    try:
        needs_native = []
        scope_builtins = sandbox_builtins(needs_native, extra)
        sandbox_import = scope_builtins["__import__"]

        def shim_import(name, globals=None, locals=None, fromlist=(), level=0):
            if name == "stagecheck" and level == 0:
                return SHIM
            # PyTorch's own code imports its (loaded) modules through the
            # running frame's builtins: the program's.
            if level == 0 and name in sys.modules and name.split(".")[0] == "torch":
                return real_import(name, globals, locals, fromlist, level)
            return sandbox_import(name, globals, locals, fromlist, level)

        scope_builtins["__import__"] = shim_import
        reply = run_code(code, path, stdout_limit, scope_builtins, needs_native, current.alias, custom=render_tensor, hidden=current.minted)
    finally:
        Run.current = None
    if mode != "compiled" or "outcome" not in reply:
        return reply
    if current.crashes:
        message, line = current.crashes[0]
        return {"crashed": {"message": f"torch.compile ({BACKEND}) failed inside: {message}", "line": line}}
    if counters["frames"]["ok"] == 0:
        refusals = current.unsupported or [("not tested - Dynamo converted no frame: no compiled function was called", 0)]
        return with_refusals(reply, [(f"not tested - {r}" if not r.startswith("not tested") else r, line) for r, line in refusals[:1]])
    return reply


def run(request, limits):
    return run_request(request, limits, run_compiled)


Run.path = None

WARM_UP = """def warm(n, xs):
    s = {n: [x for x in xs if x]}
    try:
        s[n].append(len(xs) % 3)
    except KeyError:
        pass
    return sorted(s[n]), format(n, "d")
"""


def _warm_up():
    """Dynamo's lazy imports and first compilation (seconds) done before
    `ready`, in the worker every program's child is forked from; best
    effort. Then reset: the children start with Dynamo's caches empty."""
    path = "<stagecheck-warm-up>"
    linecache.cache[path] = (len(WARM_UP), None, WARM_UP.splitlines(True), path)
    scope = {}
    try:
        exec(compile(WARM_UP, path, "exec"), scope)
        compiled = torch.compile(scope["warm"], backend=BACKEND)
        compiled(3, [1, 0, 2])
        compiled(4, [1, 2])
    except Exception as e:  # noqa: BLE001 - a warm-up that fails costs only time
        sys.stderr.write(f"torch-compile warm-up: {type(e).__name__}: {e}\n")
    finally:
        linecache.cache.pop(path, None)
        torch._dynamo.reset()
        counters.clear()


if __name__ == "__main__":
    if BACKEND not in ("eager", "aot_eager"):
        raise SystemExit(f"torch-compile: backend {BACKEND!r}: eager or aot_eager (inductor runs a C++ compiler, which the jail lets no target start)")
    _warm_up()
    sys.setrecursionlimit(1000 + 4)
    if hasattr(sys, "set_int_max_str_digits"):
        sys.set_int_max_str_digits(0)
    serve({"name": "torch-compile", "version": f"PyTorch {torch.__version__} (torch.compile, backend {BACKEND})", "modes": ["original", "compiled"]}, run)

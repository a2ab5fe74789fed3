"""The `tf-function` target's worker (targets/README.md): tf.function under
test, on stagecheck's tensor programs, with the `sc` API mapped onto
TensorFlow by a shim (the `stagecheck` module a program imports here).

Modes:
- `original`: eager TensorFlow; `@sc.function` leaves the function as it is.
- `staged`: `@sc.function` is `tf.function` (AutoGraph on, as by default):
  each call runs the traced graph.

The shim maps each `sc.` name onto its TensorFlow op (`sc.constant` is
`tf.constant`, `sc.reduce_sum` `tf.reduce_sum`, ...); `sc.print` is Python's
print in both modes (a staged function prints when it is traced, as
TensorFlow documents for Python side effects); `sc.device` is a no-op (CPU
only). Tensors in the globals render as stagecheck's `Tensor` values (dtype,
shape, elements); `str()` of a tensor is TensorFlow's on both sides.

Refusals: TensorFlow's own errors while tracing that say the program cannot
be staged (`OperatorNotAllowedInGraphError`, "not supported" conversions,
AutoGraph's fallbacks) end the staged run as `refused`, whatever it did after.
"""

import builtins
import contextlib
import os
import types

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")
os.environ.setdefault("AUTOGRAPH_VERBOSITY", "0")
os.environ.setdefault("TF_ENABLE_ONEDNN_OPTS", "0")

import numpy as np  # noqa: E402
import tensorflow as tf  # noqa: E402
from tensorflow.python.autograph.impl import api as ag_api  # noqa: E402
from tensorflow.python.framework import errors_impl  # noqa: E402

tf.get_logger().setLevel("ERROR")
tf.autograph.set_verbosity(0)
tf.config.set_visible_devices([], "GPU")


class Run:
    current = None

    def __init__(self, mode):
        self.mode = mode
        self.refusals = []


def _fall_back(f, args, kwargs, options, exc):
    if Run.current is not None:
        name = getattr(f, "__qualname__", None) or repr(f)
        line = getattr(getattr(f, "__code__", None), "co_firstlineno", 0)
        Run.current.refusals.append((f"AutoGraph could not transform {name} and will run it as-is: {type(exc).__name__}: {exc}", line))
    return ag_api._call_unconverted(f, args, kwargs, options)


ag_api._fall_back_unconverted = _fall_back
# tf.function re-raises an exception of a staged function with its message
# framed by the user code's frames ("in user code: File ... NameError: m"),
# through the metadata AutoGraph attaches here: documented error rewriting,
# not the program's meaning, and it shows wherever a program prints an
# exception it caught. Off, so the original's message is compared.
ag_api._attach_error_metadata = lambda e, f: None


def _function(f=None, **options):
    if f is None:
        return lambda g: _function(g, **options)
    if Run.current is not None and Run.current.mode == "staged":
        return tf.function(f)
    return f


def make_shim():
    sc = types.ModuleType("stagecheck")
    for name in ("constant", "convert_to_tensor", "zeros", "ones", "range", "eye", "matmul", "reduce_sum", "reduce_mean",
                 "reduce_max", "reduce_min", "reduce_prod", "argmax", "argmin", "where", "cast", "reshape", "transpose",
                 "concat", "stack", "exp", "log", "sqrt", "tanh", "sigmoid", "abs", "maximum", "minimum", "Variable",
                 "py_function", "float16", "float32", "float64", "int8", "int16", "int32", "int64", "uint8", "bool",
                 "Tensor", "size", "shape", "square", "sign", "floor", "ceil", "round"):
        if hasattr(tf, name):
            setattr(sc, name, getattr(tf, name))
    sc.nn = types.SimpleNamespace(relu=tf.nn.relu, softmax=tf.nn.softmax, sigmoid=tf.nn.sigmoid)
    # Where stagecheck's signature is not TensorFlow's.
    sc.log = tf.math.log
    sc.eye = lambda n, dtype=tf.float32: tf.eye(n, dtype=dtype)
    sc.function = _function
    sc.device = lambda name: contextlib.nullcontext()
    sc.print = builtins.print
    sc.StagingError = errors_impl.OperatorNotAllowedInGraphError
    return sc


SHIM = make_shim()
real_import = builtins.__import__

DTYPES = {tf.bool: "bool", tf.int32: "int32", tf.int64: "int64", tf.float32: "float32", tf.float64: "float64"}


# executor/src/tensors/mod.rs's MAX_ELEMENTS_RENDERED: a bigger array
# renders its first elements flat, then `truncated`.
MAX_ELEMENTS_RENDERED = 4096


def render_tensor(renderer, obj):
    """A tensor, a NumPy array (`t.numpy()`'s result) or a NumPy scalar by
    value: a tensor or array as stagecheck's `Tensor` value (dtype, shape,
    nested elements), a scalar as the int, float or bool it holds, so two
    different values never compare equal; a tf.function as the user's
    function it wraps."""
    if isinstance(obj, tf.types.experimental.PolymorphicFunction):
        return renderer.render_new(obj.python_function)
    if isinstance(obj, np.generic) and not isinstance(obj, (np.str_, np.bytes_, np.void, np.object_)):
        return scalar(renderer, obj)
    if isinstance(obj, np.ndarray):
        if obj.dtype.kind not in "biuf":
            return None
        return array_value(renderer, obj, obj.dtype.name)
    if not isinstance(obj, (tf.Tensor, tf.Variable)):
        return None
    try:
        value = obj.numpy()
    except Exception:
        return {"kind": "opaque", "v": {"type_name": type(obj).__name__}}
    return array_value(renderer, np.asarray(value), DTYPES.get(obj.dtype, obj.dtype.name))


def scalar(renderer, x):
    """A NumPy (or Python) scalar by value."""
    if isinstance(x, (bool, np.bool_)):
        return {"kind": "bool", "v": bool(x)}
    if isinstance(x, np.integer):
        return {"kind": "int", "v": str(int(x))}
    if isinstance(x, np.floating):
        return {"kind": "float", "v": struct.unpack("<Q", struct.pack("<d", float(x)))[0]}
    return renderer.render(x)


def array_value(renderer, value, dtype):
    """An array's elements nested as its shape, or past the bound its first
    elements flat and `truncated`."""
    def element(x):
        if isinstance(x, np.ndarray):
            if x.ndim == 0:
                return scalar(renderer, x[()])
            return {"kind": "list", "v": [element(y) for y in x]}
        return scalar(renderer, x)

    if value.size > MAX_ELEMENTS_RENDERED:
        flat = [scalar(renderer, x) for x in value.reshape(-1)[:MAX_ELEMENTS_RENDERED]]
        values = {"kind": "list", "v": flat + [{"kind": "truncated"}]}
    else:
        values = element(value)
    return {"kind": "tensor", "v": {"dtype": dtype, "shape": list(value.shape), "values": values}}


def run_staged(code, source, path, mode, stdout_limit):
    if mode not in ("original", "staged"):
        return {"skipped": f"the tf-function target has no mode {mode!r} (original, staged)"}
    needs_native = []
    scope_builtins = sandbox_builtins(needs_native)
    sandbox_import = scope_builtins["__import__"]

    def shim_import(name, globals=None, locals=None, fromlist=(), level=0):
        if name == "stagecheck" and level == 0:
            return SHIM
        # NumPy's and TensorFlow's C code import their own (loaded) modules
        # through the running frame's builtins: the program's.
        if level == 0 and name in sys.modules and name.split(".")[0] in ("numpy", "tensorflow"):
            return real_import(name, globals, locals, fromlist, level)
        return sandbox_import(name, globals, locals, fromlist, level)

    scope_builtins["__import__"] = shim_import
    Run.current = current = Run(mode)
    try:
        reply = run_code(code, path, stdout_limit, scope_builtins, needs_native, custom=render_tensor)
    finally:
        Run.current = None
    terminal = reply.get("outcome", {}).get("terminal", {})
    if mode == "staged" and terminal.get("state") == "raised" and terminal.get("exc_type") in ("OperatorNotAllowedInGraphError", "InaccessibleTensorError"):
        return {"refused": {"reason": f"{terminal['exc_type']}: {terminal['message'][:300]}", "line": terminal.get("line") or 0}}
    return with_refusals(reply, current.refusals)


def run(request, limits):
    return run_request(request, limits, run_staged)


if __name__ == "__main__":
    sys.setrecursionlimit(1000 + 4)
    serve({"name": "tf-function", "version": f"TensorFlow {tf.__version__}", "modes": ["original", "staged"]}, run)

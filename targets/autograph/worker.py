"""The `autograph` target's worker (targets/README.md): TensorFlow's AutoGraph
under test, on plain Python programs, without tensors.

Modes:
- `original`: the program as written, under this CPython.
- `unstaged`: every function defined at the top level of the module
  (a `def` directly in the module body, or in a top-level `if`/`try`/`with`
  body) is replaced, right after its definition, by
  `tf.autograph.to_graph(f, recursive=True)`; functions it calls are
  converted on the fly by AutoGraph (`converted_call`). The functions are
  called with Python values, so AutoGraph's operators take their Python
  paths: a difference from `original` is AutoGraph's conversion changing the
  program's meaning.

Refusals: a function `to_graph` refuses (`ConversionError`, "not yet
supported") stays unconverted, and every "could not transform ... and will
run it as-is" fallback (AutoGraph's `_fall_back_unconverted`, recorded
instead of logged) runs the function as written, as AutoGraph itself does
under tf.function. The reply is then `fell_back` with AutoGraph's first
reason: the rest of the program, converted, is still compared (a difference
is AutoGraph's), and an agreeing run counts as refused.

Globals: a converted function is rendered as the user's function it was made
from (AutoGraph's copy has another qualname), so globals compare on values.

Runs: stagecheck passes targets/python/stagecheck_target.py and this file,
joined, to the venv's python (`-c`); see src/targets/mod.rs.
"""

import os
import re

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")
os.environ.setdefault("AUTOGRAPH_VERBOSITY", "0")
os.environ.setdefault("TF_ENABLE_ONEDNN_OPTS", "0")

import tensorflow as tf  # noqa: E402
from tensorflow.python.autograph.impl import api as ag_api  # noqa: E402

tf.get_logger().setLevel("ERROR")
tf.autograph.set_verbosity(0)

CONVERT = "__stagecheck_autograph_convert__"


class Run:
    """What AutoGraph did during one run: refusals and converted functions."""

    current = None
    # The path of the last program run: a reduction's candidates share it
    # and keep AutoGraph's caches (their unchanged functions are equal code
    # objects, converted once); another program empties them.
    last_path = None

    def __init__(self):
        self.refusals = []
        self.alias = {}
        self.keep = []


def refusal_reason(exc, prefix=""):
    """A refusal's reason: `ErrorType - what AutoGraph declined: ` first (the
    report counts refusals by the text before the first colon, so each
    unsupported element or internal error is its own reason:
    `UnsupportedLanguageElementError - while/else statement not yet
    supported`, `ConversionError - AssertionError on NamedExpr`), then
    `prefix` and AutoGraph's own words in full."""
    name = type(exc).__name__
    message = str(exc)
    inner = re.sub(r"^converting <[^>]*>: ", "", message)
    head = re.split(r"[:\n(]", inner, maxsplit=1)[0].strip()
    node = re.search(r"gast\.gast\.(\w+)", inner)
    if node:
        head = f"{head} on {node.group(1)}"
    head = re.sub(r"\d+", "N", head)[:80]
    return f"{name} - {head}: {prefix}{name}: {message}"


def _fall_back(f, args, kwargs, options, exc):
    """AutoGraph's fallback, recorded as a refusal instead of a warning."""
    if Run.current is not None:
        name = getattr(f, "__qualname__", None) or repr(f)
        line = getattr(getattr(f, "__code__", None), "co_firstlineno", 0)
        prefix = f"AutoGraph could not transform {name} and will run it as-is: "
        Run.current.refusals.append((refusal_reason(exc, prefix), line))
    return ag_api._call_unconverted(f, args, kwargs, options)


def reset_caches():
    """AutoGraph's process-wide caches emptied between programs (a request
    with another path): converted functions by code object (code objects
    compare by value, so equal functions at the same line of the same path
    are one key: sound, the converted code is instantiated with each
    function's own globals and closure) and the allow-list of functions run
    unconverted. Nothing AutoGraph learnt of one program reaches the next."""
    from tensorflow.python.autograph.impl import conversion
    from tensorflow.python.autograph.pyct import cache
    ag_api._TRANSPILER._cache = cache.CodeObjectCache()
    conversion._ALLOWLIST_CACHE = cache.UnboundInstanceCache()


ag_api._fall_back_unconverted = _fall_back


def convert(f):
    import types as _types
    if not isinstance(f, _types.FunctionType):
        return f
    run = Run.current
    try:
        converted = tf.autograph.to_graph(f, recursive=True)
    except Exception as e:  # ConversionError, and anything else to_graph lets out
        run.refusals.append((refusal_reason(e), f.__code__.co_firstlineno))
        return f
    run.alias[id(converted)] = f
    run.keep.append(converted)  # ids stay unique while the run lasts
    return converted


def run_converted(code, source, path, mode, stdout_limit):
    extra = {}
    if mode == "unstaged":
        code = compile_wrapped(source, path, CONVERT)
        extra[CONVERT] = convert
    elif mode != "original":
        return {"skipped": f"the autograph target has no mode {mode!r} (original, unstaged)"}
    if Run.last_path != path:
        reset_caches()
        Run.last_path = path
    Run.current = current = Run()
    try:
        needs_native = []
        reply = run_code(code, path, stdout_limit, sandbox_builtins(needs_native, extra), needs_native, current.alias)
    finally:
        Run.current = None
    return with_refusals(reply, current.refusals)


def run(request, limits):
    return run_request(request, limits, run_converted)


WARM_UP = """def warm(n):
    s = 0
    for i in range(n):
        if i % 2:
            s += i
    while s > 3:
        s -= 1
    return s
"""


def _warm_up():
    """One conversion before `ready` (best effort): AutoGraph's lazy imports
    and first transformation (a second or more) are not charged to the first
    program's time limit. Its source is known to `inspect` as a program's is."""
    path = "<stagecheck-warm-up>"
    linecache.cache[path] = (len(WARM_UP), None, WARM_UP.splitlines(True), path)
    scope = {}
    try:
        exec(compile(WARM_UP, path, "exec"), scope)
        tf.autograph.to_graph(scope["warm"], recursive=True)(3)
    except Exception as e:  # noqa: BLE001 - a warm-up that fails costs only time
        sys.stderr.write(f"autograph warm-up: {type(e).__name__}: {e}\n")
    finally:
        linecache.cache.pop(path, None)
        reset_caches()


if __name__ == "__main__":
    _warm_up()
    sys.setrecursionlimit(1000 + 4)
    if hasattr(sys, "set_int_max_str_digits"):
        sys.set_int_max_str_digits(0)
    serve({"name": "autograph", "version": f"TensorFlow {tf.__version__}", "modes": ["original", "unstaged"]}, run)

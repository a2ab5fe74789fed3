"""Runs one program under CPython the way stagecheck's executor runs it under
RustPython, and prints its outcome as the executor's `Outcome` JSON (serde's
format of executor/src/outcome.rs and value.rs), for the `--oracle cpython`
comparison (src/cpython.rs).

    python3 -S -B -c "$(cat wrapper.py)" PATH STDOUT_LIMIT MEMORY_BYTES CPU_SECONDS < program

Mirrors of the sandbox (executor/src/sandbox.rs): the same builtins removed,
the same allow-listed importer and its messages, stdout and stderr into one
capped buffer, the globals the program bound rendered like
executor/src/render.rs (payloads read directly, no user __repr__ run).
An import of `stagecheck` (whose package imports the native
`_stagecheck_tensor` RustPython alone has) ends the run as skipped.
"""

import builtins
import json
import resource
import struct
import sys
import time
import types

ALLOWED = ("math",)
REMOVED = ("open", "input", "breakpoint", "help", "exit", "quit", "copyright", "credits", "license")
MAX_DEPTH = 48
MAX_NODES = 200_000
HEAPTYPE = 1 << 9
QUALNAME = type.__dict__["__qualname__"]


class NeedsNative(BaseException):
    """Raised by the importer for `stagecheck`: not a Python exception a program expects."""


def lossy(s):
    """RustPython's to_string_lossy: lone surrogates become U+FFFD."""
    if any(0xD800 <= ord(c) < 0xE000 for c in s):
        return "".join("\ufffd" if 0xD800 <= ord(c) < 0xE000 else c for c in s)
    return s


class Capture:
    """sys.stdout and sys.stderr: one buffer of at most `limit` UTF-8 bytes."""

    def __init__(self, limit):
        self.parts, self.size, self.limit, self.truncated = [], 0, limit, False

    def write(self, s):
        if not isinstance(s, str):
            raise TypeError(f"write() argument must be str, not {type(s).__name__}")
        text = lossy(s)
        data = text.encode("utf-8")
        room = max(self.limit - self.size, 0)
        if len(data) > room:
            text = data[:room].decode("utf-8", "ignore")
            data = text.encode("utf-8")
            self.truncated = True
        self.parts.append(text)
        self.size += len(data)
        return len(s)

    def flush(self):
        pass


def str_of(obj):
    return lossy(str.__str__(obj)) if isinstance(obj, str) else f"<{type(obj).__name__}>"


class Renderer:
    def __init__(self):
        self.path = []
        self.nodes_left = MAX_NODES

    def render(self, obj):
        if self.nodes_left == 0 or len(self.path) >= MAX_DEPTH:
            return {"kind": "truncated"}
        self.nodes_left -= 1
        if id(obj) in self.path:
            pos = len(self.path) - 1 - self.path[::-1].index(id(obj))
            return {"kind": "cycle", "v": len(self.path) - pos}
        self.path.append(id(obj))
        try:
            return self.render_new(obj)
        finally:
            self.path.pop()

    def render_new(self, obj):
        if obj is None:
            return {"kind": "none"}
        cls = type(obj)
        if cls is bool:
            return {"kind": "bool", "v": obj}
        if issubclass(cls, type):
            return {"kind": "class", "v": {"qualname": str_of(QUALNAME.__get__(obj))}}
        if issubclass(cls, types.FunctionType):
            return {"kind": "function", "v": {"qualname": str_of(getattr(obj, "__qualname__", "?"))}}
        if issubclass(cls, types.ModuleType):
            return {"kind": "module", "v": {"name": str_of(getattr(obj, "__name__", "?"))}}
        builtin = self.payload(obj, cls)
        if not cls.__flags__ & HEAPTYPE:
            return builtin or {"kind": "opaque", "v": {"type_name": cls.__name__}}
        try:
            d = object.__getattribute__(obj, "__dict__")
        except Exception:
            d = None
        attrs = [[str_of(k), self.render(v)] for k, v in list(dict.items(d))] if isinstance(d, dict) else []
        attrs.sort(key=lambda a: a[0])
        return {"kind": "instance", "v": {"class": str_of(QUALNAME.__get__(cls)), "attrs": attrs, "base": builtin}}

    def payload(self, obj, cls):
        """The builtin value an object carries (render.rs's builtin_payload, same order)."""
        if issubclass(cls, int):
            return {"kind": "int", "v": int.__repr__(obj)}
        if issubclass(cls, float):
            return {"kind": "float", "v": struct.unpack("<Q", struct.pack("<d", float.__float__(obj)))[0]}
        if issubclass(cls, complex):
            bits = lambda x: struct.unpack("<Q", struct.pack("<d", x))[0]
            return {"kind": "complex", "v": [bits(complex.real.__get__(obj)), bits(complex.imag.__get__(obj))]}
        if issubclass(cls, str):
            return {"kind": "str", "v": lossy(str.__str__(obj))}
        if issubclass(cls, bytes):
            return {"kind": "bytes", "v": list(memoryview(obj))}
        if issubclass(cls, bytearray):
            return {"kind": "byte_array", "v": list(memoryview(obj))}
        if issubclass(cls, list):
            return {"kind": "list", "v": [self.render(x) for x in list.copy(obj)]}
        if issubclass(cls, tuple):
            return {"kind": "tuple", "v": [self.render(x) for x in tuple.__getitem__(obj, slice(None))]}
        if issubclass(cls, dict):
            return {"kind": "dict", "v": [[self.render(k), self.render(v)] for k, v in list(dict.items(obj))]}
        # Set elements in any order: the Rust side sorts them as render.rs does.
        if issubclass(cls, set):
            return {"kind": "set", "v": [self.render(x) for x in list(set.__iter__(obj))]}
        if issubclass(cls, frozenset):
            return {"kind": "frozen_set", "v": [self.render(x) for x in list(frozenset.__iter__(obj))]}
        if cls is range:
            return {"kind": "range", "v": [{"kind": "int", "v": repr(x)} for x in (obj.start, obj.stop, obj.step)]}
        return None


def main():
    path, stdout_limit, memory, cpu = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4])
    real_stdout = sys.stdout
    source = sys.stdin.buffer.read().decode("utf-8")
    # RustPython has no limit on int <-> str conversions; CPython 3.11's is a
    # security default, not the language (README's normalisation table).
    if hasattr(sys, "set_int_max_str_digits"):
        sys.set_int_max_str_digits(0)
    # RustPython's limit is 1000 frames from the module's; here main() and
    # the wrapper's module frame come first.
    sys.setrecursionlimit(1000 + 2)
    if memory:
        resource.setrlimit(resource.RLIMIT_AS, (memory, memory))
    if cpu:
        resource.setrlimit(resource.RLIMIT_CPU, (cpu, cpu + 1))
    try:
        code = compile(source, path, "exec", dont_inherit=True)
    except (SyntaxError, ValueError) as e:
        real_stdout.write(json.dumps({"uncompilable": {"message": f"{type(e).__name__}: {e}", "line": getattr(e, "lineno", 1) or 1}}))
        return
    needs_native = []
    real_import = builtins.__import__

    def sandbox_import(name, globals=None, locals=None, fromlist=(), level=0):
        if level != 0:
            raise ImportError("stagecheck sandbox: relative imports are not allowed", name=name)
        if name.split(".")[0] in ("stagecheck", "_stagecheck_tensor"):
            needs_native.append(name)
            raise NeedsNative(name)
        if name not in ALLOWED:
            raise ImportError(f"stagecheck sandbox: import of '{name}' is not allowed (allowed: {', '.join(ALLOWED)})", name=name)
        return real_import(name, globals, locals, fromlist, level)

    scope_builtins = dict(builtins.__dict__)
    for name in REMOVED:
        scope_builtins.pop(name, None)
    scope_builtins["__import__"] = sandbox_import
    scope = {"__name__": "__main__", "__builtins__": scope_builtins}
    initial = list(scope)
    capture = Capture(stdout_limit)
    sys.stdout = sys.stderr = capture
    started = time.perf_counter()
    try:
        exec(code, scope)
        terminal = {"state": "completed"}
    except BaseException as exc:  # noqa: B036 - everything a program raises is an outcome
        terminal = raised(exc, path)
    finally:
        micros = int((time.perf_counter() - started) * 1e6)
        sys.stdout, sys.stderr = real_stdout, sys.__stderr__
    if needs_native:
        real_stdout.write(json.dumps({"skipped": f"imports {needs_native[0]} (needs the native _stagecheck_tensor)"}))
        return
    renderer = Renderer()
    globals_ = [[str_of(k), renderer.render(v)] for k, v in list(scope.items())
                if k not in initial and k != "__warningregistry__"]
    outcome = {"terminal": terminal, "stdout": "".join(capture.parts), "stdout_truncated": capture.truncated,
               "globals": globals_, "micros": micros}
    real_stdout.write(json.dumps({"outcome": outcome}))


def raised(exc, path):
    try:
        message = lossy(str(exc))
    except BaseException:
        message = "<unprintable message>"
    frames = []
    tb = exc.__traceback__
    while tb is not None:
        code = tb.tb_frame.f_code
        if code.co_filename != "<string>":  # the wrapper's own frames (-c)
            frames.append({"file": code.co_filename, "line": tb.tb_lineno, "function": code.co_name})
        tb = tb.tb_next
    line = next((f["line"] for f in reversed(frames) if f["file"] == path), None)
    return {"state": "raised", "exc_type": type(exc).__name__, "message": message, "line": line, "traceback": frames}


if __name__ == "__main__":
    main()

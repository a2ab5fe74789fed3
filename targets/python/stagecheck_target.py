"""stagecheck's Python target kit: one program run under CPython and its
outcome in the JSON shape of stagecheck's own runs (serde's format of
executor/src/outcome.rs and value.rs), and the frames of the targets
protocol (targets/README.md).

Used twice, never copied: the CPython oracle's wrapper (src/cpython/wrapper.py,
one run per process) and every Python target's worker
(targets/autograph/worker.py, targets/tf_function/worker.py: many runs per
process). stagecheck passes this file and the worker's file, joined, to
`python -c`, so nothing here is imported by name.

What it mirrors of stagecheck's sandbox (executor/src/sandbox.rs): the same
builtins removed, the same allow-listed importer and its messages, stdout and
stderr into one capped buffer, the globals the program bound rendered like
executor/src/render.rs (payloads read directly, no user __repr__ run), and
bounded as executor/src/bounds.rs bounds them (long values, names and
exception messages abbreviated by length and SHA-256, the same characters on
both sides so the oracle compares them; a budget of units). It is
no sandbox: a program can reach the real importer through any function's
__globals__. stagecheck confines the process instead (the jail, src/jail/).
"""

import ast
import builtins
import hashlib
import json
import linecache
import os
import re
import select
import struct
import sys
import time
import types

ALLOWED = ("math",)
REMOVED = ("open", "input", "breakpoint", "help", "exit", "quit", "copyright", "credits", "license")
MAX_DEPTH = 48
MAX_NODES = 200_000
MAX_UNITS = 256 << 10
LONG = 4096
HEAD = 64
INT_DIGITS = 4300
INT_BITS = 14_400
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

    def isatty(self):
        return False


def sha256(data):
    return hashlib.sha256(data).hexdigest()[:32]


ADDRESS = re.compile(r" at 0x([0-9a-fA-F]{6,})(?=>)")


def named(s):
    """addresses.rs's named: the addresses of `s`'s default reprs (inside a
    `<` opened on the same line) named by their order in it."""
    seen = []

    def name(m):
        before = s[: m.start()]
        cut = max(before.rfind("<"), before.rfind(">"), before.rfind("\n"))
        if cut < 0 or before[cut] != "<":
            return m.group(0)
        address = m.group(1).lower()
        if address not in seen:
            seen.append(address)
        return f" at 0x@{seen.index(address) + 1}"

    return ADDRESS.sub(name, s) if " at 0x" in s else s


def text(s):
    """bounds.rs's text: `s`, or past LONG characters its head, length and
    hash, of `s` with its addresses named."""
    if len(s) <= LONG:
        return s
    s = named(s)
    return f"{s[:HEAD]}…<{len(s)} chars, sha256 {sha256(s.encode('utf-8'))}>"


def escaped(data):
    return "".join(chr(b) if 32 <= b < 127 and b != 92 else f"\\x{b:02x}" for b in data)


def long_value(of, length, head, digest):
    return {"kind": "long", "v": {"of": of, "len": length, "head": head, "sha256": digest}}


def int_value(n):
    """render.rs's int_value: decimal, or by bit length and hash past INT_DIGITS digits."""
    bits = int.bit_length(n)
    if bits <= INT_BITS:
        try:
            s = int.__repr__(n)
        except ValueError:  # CPython's own digit limit
            s = None
        if s is not None and len(s.lstrip("-")) <= INT_DIGITS:
            return {"kind": "int", "v": s}
    magnitude = int.__abs__(n)
    return long_value("int", bits, "-" if n < 0 else "", sha256(magnitude.to_bytes((bits + 7) // 8, "little")))


def cost(value, depth):
    """bounds.rs's cost: 16 a node, 2 a level of depth, 1 a byte of its own text."""
    kind, v = value["kind"], value.get("v")
    def size(x):
        return len(x.encode("utf-8"))
    if kind in ("int", "str"):
        own = size(v)
    elif kind in ("bytes", "byte_array"):
        own = len(v)
    elif kind == "long":
        own = size(v["of"]) + size(v["head"]) + size(v["sha256"]) + 20
    elif kind in ("function", "class"):
        own = size(v["qualname"])
    elif kind == "module":
        own = size(v["name"])
    elif kind == "opaque":
        own = size(v["type_name"])
    elif kind == "instance":
        own = size(v["class"]) + sum(size(k) for k, _ in v["attrs"])
    elif kind == "tensor":
        own = size(v["dtype"]) + 8 * elements(v["values"])
    else:
        own = 0
    return 16 + 2 * depth + own


def elements(values):
    """The elements of a rendered tensor's values (nested lists)."""
    return sum(elements(x) for x in values["v"]) if values["kind"] == "list" else 1


def str_of(obj):
    return text(lossy(str.__str__(obj)) if isinstance(obj, str) else f"<{type(obj).__name__}>")


class Renderer:
    """Values as executor/src/value.rs's `Value` JSON. `alias` maps id() of an
    object to the object rendered in its place (a converted function stands
    for the user's function it was made from); `custom(renderer, obj)`
    renders what a target knows better (its tensors), or returns None."""

    def __init__(self, alias=None, custom=None):
        self.path = []
        self.nodes_left = MAX_NODES
        self.units_left = MAX_UNITS
        self.long = {}  # id -> (obj, value): long values rendered once
        self.alias = alias or {}
        self.custom = custom

    def render(self, obj):
        obj = self.alias.get(id(obj), obj)
        if self.spent() or len(self.path) >= MAX_DEPTH:
            return {"kind": "truncated"}
        self.nodes_left -= 1
        if id(obj) in self.path:
            pos = len(self.path) - 1 - self.path[::-1].index(id(obj))
            return {"kind": "cycle", "v": len(self.path) - pos}
        self.path.append(id(obj))
        try:
            value = self.render_new(obj)
        finally:
            self.path.pop()
        self.units_left = max(self.units_left - cost(value, len(self.path)), 0)
        return value

    def spent(self):
        return self.nodes_left == 0 or self.units_left == 0

    def render_all(self, objs):
        values = []
        for x in objs:
            if self.spent():
                values.append({"kind": "truncated"})
                break
            values.append(self.render(x))
        return values

    def render_pairs(self, items, key):
        pairs = []
        for k, v in items:
            if self.spent():
                pairs.append([{"kind": "truncated"}, {"kind": "truncated"}])
                break
            k = key(k)
            pairs.append([k, self.render(v)])
        return pairs

    def once(self, obj, render):
        if id(obj) in self.long:
            return self.long[id(obj)][1]
        value = render()
        if value["kind"] == "long":
            self.long[id(obj)] = (obj, value)
        return value

    def long_str(self, obj):
        s = lossy(str.__str__(obj))
        if len(s) <= LONG:
            return {"kind": "str", "v": s}
        s = named(s)
        return long_value("str", len(s), s[:HEAD], sha256(s.encode("utf-8")))

    @staticmethod
    def long_bytes(of, data):
        if len(data) <= LONG:
            return {"kind": of, "v": list(data)}
        return long_value("bytes" if of == "bytes" else "bytearray", len(data), escaped(data[:HEAD]), sha256(data))

    def render_new(self, obj):
        if obj is None:
            return {"kind": "none"}
        if self.custom is not None:
            mine = self.custom(self, obj)
            if mine is not None:
                return mine
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
        pairs = self.render_pairs(list(dict.items(d)), lambda k: str_of(k)) if isinstance(d, dict) else []
        attrs = [[k if isinstance(k, str) else "...", v] for k, v in pairs]
        attrs.sort(key=lambda a: a[0])
        return {"kind": "instance", "v": {"class": str_of(QUALNAME.__get__(cls)), "attrs": attrs, "base": builtin}}

    def payload(self, obj, cls):
        """The builtin value an object carries (render.rs's builtin_payload, same order)."""
        if issubclass(cls, int):
            return self.once(obj, lambda: int_value(obj))
        if issubclass(cls, float):
            return {"kind": "float", "v": struct.unpack("<Q", struct.pack("<d", float.__float__(obj)))[0]}
        if issubclass(cls, complex):
            def bits(x):
                return struct.unpack("<Q", struct.pack("<d", x))[0]
            return {"kind": "complex", "v": [bits(complex.real.__get__(obj)), bits(complex.imag.__get__(obj))]}
        if issubclass(cls, str):
            return self.once(obj, lambda: self.long_str(obj))
        if issubclass(cls, bytes):
            return self.once(obj, lambda: self.long_bytes("bytes", memoryview(obj)))
        if issubclass(cls, bytearray):
            return self.once(obj, lambda: self.long_bytes("byte_array", memoryview(obj)))
        if issubclass(cls, list):
            return {"kind": "list", "v": self.render_all(list.copy(obj))}
        if issubclass(cls, tuple):
            return {"kind": "tuple", "v": self.render_all(tuple.__getitem__(obj, slice(None)))}
        if issubclass(cls, dict):
            return {"kind": "dict", "v": self.render_pairs(list(dict.items(obj)), self.render)}
        # Set elements in any order: the Rust side sorts them as render.rs
        # does (what a spent budget cuts may differ: iteration orders do).
        if issubclass(cls, set):
            return {"kind": "set", "v": self.render_all(list(set.__iter__(obj)))}
        if issubclass(cls, frozenset):
            return {"kind": "frozen_set", "v": self.render_all(list(frozenset.__iter__(obj)))}
        if cls is range:
            return {"kind": "range", "v": [int_value(x) for x in (obj.start, obj.stop, obj.step)]}
        return None


def raised(exc, path):
    """An exception as the executor's `Terminal::Raised`; `line` is the
    innermost frame of the program's own file."""
    try:
        message = text(lossy(str(exc)))
    except BaseException:
        message = "<unprintable message>"
    frames = []
    tb = exc.__traceback__
    while tb is not None:
        code = tb.tb_frame.f_code
        if code.co_filename != "<string>":  # the kit's and the worker's own frames (-c)
            frames.append({"file": text(code.co_filename), "line": tb.tb_lineno, "function": text(code.co_name)})
        tb = tb.tb_next
    if len(frames) > 64:  # executor.rs's: the outermost and innermost 32
        frames = frames[:32] + frames[-32:]
    line = next((f["line"] for f in reversed(frames) if f["file"] == path), None)
    return {"state": "raised", "exc_type": text(type(exc).__name__), "message": message, "line": line, "traceback": frames}


def compile_program(source, path):
    """The program's code object, or the `uncompilable` reply."""
    try:
        return compile(source, path, "exec", dont_inherit=True), None
    except (SyntaxError, ValueError) as e:
        return None, {"uncompilable": {"message": f"{type(e).__name__}: {e}", "line": getattr(e, "lineno", 1) or 1}}


def sandbox_builtins(needs_native, extra=None):
    """The builtins a program sees: the sandbox's removals and importer;
    `extra` (a target's helpers) are builtins too, so no global is added."""
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
    scope_builtins.update(extra or {})
    return scope_builtins


def run_code(code, path, stdout_limit, scope_builtins, needs_native, alias=None, custom=None, hidden=None):
    """Runs `code` in a fresh module scope; the reply: `{"outcome": ...}`,
    or `{"skipped": why}` for a program that imports stagecheck's native module.
    `hidden(name)`: globals the target itself bound, never rendered (nor
    charged to the rendering's budget)."""
    scope = {"__name__": "__main__", "__builtins__": scope_builtins}
    initial = list(scope)
    capture = Capture(stdout_limit)
    real = sys.stdout, sys.stderr
    sys.stdout = sys.stderr = capture
    started = time.perf_counter()
    try:
        exec(code, scope)
        terminal = {"state": "completed"}
    except BaseException as exc:  # everything a program raises is an outcome
        terminal = raised(exc, path)
    finally:
        micros = int((time.perf_counter() - started) * 1e6)
        sys.stdout, sys.stderr = real
    if needs_native:
        return {"skipped": f"imports {needs_native[0]} (needs the native _stagecheck_tensor)"}
    renderer = Renderer(alias, custom)
    globals_ = [[str_of(k), renderer.render(v)] for k, v in list(scope.items())
                if k not in initial and k != "__warningregistry__" and not (hidden and hidden(k))]
    outcome = {"terminal": terminal, "stdout": "".join(capture.parts), "stdout_truncated": capture.truncated,
               "globals": globals_, "micros": micros}
    return {"outcome": outcome}


def run_request(request, limits, run):
    """A target's run, its common frame: the request's program compiled (else
    the `uncompilable` reply) and its source known to `inspect` (linecache:
    converters read functions' source) while `run(code, source, path, mode,
    stdout_limit)` makes the reply."""
    source, path, mode = request["source"], request["path"], request["mode"]
    code, uncompilable = compile_program(source, path)
    if uncompilable:
        return uncompilable
    linecache.cache[path] = (len(source), None, source.splitlines(True), path)
    try:
        return run(code, source, path, mode, int(limits.get("stdout_limit", 1 << 20)))
    finally:
        linecache.cache.pop(path, None)


def wrap_definitions(body, helper):
    """`f = helper(f)` after each function definition in the module `body`
    (and in the bodies of top-level compound statements other than def and
    class), on the definition's last line: how a converter under test
    replaces each top-level function (AutoGraph's `to_graph`, `torch.compile`)."""
    out = []
    for stmt in body:
        for field in ("body", "orelse", "finalbody"):
            if not isinstance(stmt, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)) and isinstance(getattr(stmt, field, None), list):
                setattr(stmt, field, wrap_definitions(getattr(stmt, field), helper))
        for handler in getattr(stmt, "handlers", []) or []:
            handler.body = wrap_definitions(handler.body, helper)
        out.append(stmt)
        if isinstance(stmt, ast.FunctionDef):
            call = ast.Assign(
                targets=[ast.Name(stmt.name, ast.Store())],
                value=ast.Call(ast.Name(helper, ast.Load()), [ast.Name(stmt.name, ast.Load())], []),
            )
            out.append(ast.copy_location(call, stmt))
            ast.fix_missing_locations(call)
            for node in ast.walk(call):
                node.lineno = node.end_lineno = stmt.end_lineno
                node.col_offset = node.end_col_offset = 0
    return out


def compile_wrapped(source, path, helper):
    """The program's code with `f = helper(f)` after each top-level function
    definition ([`wrap_definitions`])."""
    tree = ast.parse(source, path)
    tree.body = wrap_definitions(tree.body, helper)
    return compile(tree, path, "exec", dont_inherit=True)


def with_refusals(reply, refusals):
    """`reply` after a run in which the compiler declined parts, each
    `(reason, line)`: `fell_back` (the rest ran converted) or `refused`."""
    if not refusals:
        return reply
    reason, line = refusals[0]
    if "outcome" in reply:
        return {"fell_back": {"outcome": reply["outcome"], "reason": reason, "line": line}}
    return {"refused": {"reason": reason, "line": line}}


def read_frame(stream):
    """One frame (4-byte little-endian length, that many bytes of JSON); None at the end."""
    header = stream.read(4)
    if len(header) < 4:
        return None
    (length,) = struct.unpack("<I", header)
    body = stream.read(length)
    if len(body) < length:
        return None
    return json.loads(body.decode("utf-8"))


def write_frame(stream, message):
    body = json.dumps(message).encode("utf-8")
    stream.write(struct.pack("<I", len(body)) + body)
    stream.flush()


def serve(ready, run):
    """The worker's loop (targets/README.md): answers `hello` with `ready`
    (a dict: name, version, modes), then each `run` with `run(request, limits)`'s
    reply, until stdin closes. Anything the target itself prints goes to
    stderr (which stagecheck keeps for a crash's message).

    A fork server (AFL's): the worker imports its compiler once, and each run
    happens in a child forked for it, so every program starts from the state
    the worker had when it said `ready`: nothing a program rebinds, caches or
    breaks in the compiler reaches the next program. The child has no way to
    the protocol's channel (its stdin reads nothing, its fd 1 is a pipe to
    this process, which forwards what it wrote there); a child that dies
    without a reply ends this worker the same way, so stagecheck reports the
    run as it would any worker's death."""
    stdin, stdout = sys.stdin.buffer, sys.stdout.buffer
    sys.stdout = sys.stderr
    hello = read_frame(stdin)
    if not hello or "hello" not in hello:
        raise SystemExit("the first frame must be hello")
    limits = hello["hello"].get("limits", {})
    filters = seccomp_filters()
    # What the worker holds now is shared with every child; frozen, the
    # children's collections never walk it, and so never copy the pages the
    # walk would write (a full collection over TensorFlow's heap in each
    # child doubled a run's time).
    import gc
    gc.collect()
    gc.freeze()
    write_frame(stdout, {"ready": ready})
    child = fork_child(run, limits, stdout, filters)
    while True:
        request = read_frame(stdin)
        if request is None:
            return
        serve_one(child, request, stdout)
        # The next program's child, forked while stagecheck looks at this
        # one's reply: the fork is off the next run's clock.
        child = fork_child(run, limits, stdout, filters)
        reap()


def fork_child(run, limits, stdout, filters):
    """A child that waits for one run request, runs it and writes its reply
    (pid, the request pipe's write end, the reply pipe's read end)."""
    request_r, request_w = os.pipe()
    reply_r, reply_w = os.pipe()
    pid = os.fork()
    if pid == 0:
        code = 70
        try:
            os.close(request_w)
            os.close(reply_r)
            os.dup2(os.open(os.devnull, os.O_RDONLY), 0)
            os.dup2(reply_w, 1)
            os.close(reply_w)
            install(filters)
            with os.fdopen(request_r, "rb") as requests:
                request = read_frame(requests)
            if request is None:
                code = 0
            else:
                write_frame(stdout, run(request["run"], limits))
                code = 0
        except BaseException:
            import traceback
            traceback.print_exc()
        finally:
            sys.stderr.flush()
            os._exit(code)
    os.close(request_r)
    os.close(reply_w)
    return pid, request_w, reply_r


def serve_one(child, request, stdout):
    """Hands `request` to `child` and passes on its reply's frame as it
    comes. Once the whole frame is through, the child's exit is not waited
    for (it is reaped later: its teardown is off the clock); a child that
    ends without one ends this worker the same way."""
    pid, request_w, r = child
    with os.fdopen(request_w, "wb") as requests:
        write_frame(requests, request)
    passed, want, header = 0, None, b""
    status = None
    while want is None or passed < want:
        ready, _, _ = select.select([r], [], [], 0.05)
        chunk = os.read(r, 1 << 20) if ready else b""
        if chunk:
            stdout.write(chunk)
            stdout.flush()
            passed += len(chunk)
            if want is None:
                header += chunk[:4 - len(header)]
                if len(header) == 4:
                    want = 4 + struct.unpack("<I", header)[0]
            continue
        if ready or status is not None:
            break
        # Until the child ends, not until the pipe does: a process the
        # program started may hold the pipe (it goes with the worker).
        done, status = os.waitpid(pid, os.WNOHANG)
        if not done:
            status = None
    os.close(r)
    if want is not None and passed >= want:
        if status is None:
            ENDED.append(pid)
        return
    if status is None:
        _, status = os.waitpid(pid, 0)
    if os.WIFSIGNALED(status):
        os.kill(os.getpid(), os.WTERMSIG(status))
    os._exit(os.WEXITSTATUS(status) or 70)


ENDED = []


def reap():
    """Reaps the children whose replies went through (zombies otherwise)."""
    for pid in ENDED[:]:
        done, _ = os.waitpid(pid, os.WNOHANG)
        if done:
            ENDED.remove(pid)


def seccomp_filters():
    """The jail's filters that a program's child installs: no process but
    threads (STAGECHECK_THREADS_ONLY: classic BPF programs, hex, comma-separated);
    the worker itself may fork, its children may not."""
    hexed = os.environ.pop("STAGECHECK_THREADS_ONLY", "")
    if not hexed:
        return []
    import ctypes
    libc = ctypes.CDLL(None, use_errno=True)

    class Program(ctypes.Structure):
        _fields_ = [("len", ctypes.c_ushort), ("filter", ctypes.c_void_p)]

    filters = []
    for h in hexed.split(","):
        raw = ctypes.create_string_buffer(bytes.fromhex(h), len(h) // 2)
        filters.append((libc, Program(len(h) // 16, ctypes.cast(raw, ctypes.c_void_p)), raw))
    return filters


def install(filters):
    """Installs `filters` on this process (prctl PR_SET_SECCOMP, filter mode); fails closed."""
    import ctypes
    for libc, program, _ in filters:
        if libc.prctl(22, 2, ctypes.byref(program), 0, 0) != 0:
            raise OSError(ctypes.get_errno(), "the jail's filter could not be installed")

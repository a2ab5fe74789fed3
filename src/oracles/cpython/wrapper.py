"""Runs one program under CPython the way stagecheck's executor runs it under
RustPython, and prints its outcome as the executor's `Outcome` JSON, for the
`--oracle cpython` comparison (src/oracles/cpython/mod.rs).

    python3 -S -B -c "$(cat targets/python/stagecheck_target.py wrapper.py)" PATH STDOUT_LIMIT MEMORY_BYTES CPU_SECONDS < program

The run itself (the sandbox's builtins and importer, the capture, the
rendering) is the targets' kit, targets/python/stagecheck_target.py, which
stagecheck puts before this file. An import of `stagecheck` (whose package
imports the native `_stagecheck_tensor` RustPython alone has) ends the run as
skipped.
"""

import resource


def main():
    path, stdout_limit, memory, cpu = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4])
    real_stdout = sys.stdout
    source = sys.stdin.buffer.read().decode("utf-8")
    # CPython 3.11's limit on int <-> str conversions (4300 digits), which
    # stagecheck's VM raises alike (its PATCHES.md); set whatever the
    # environment asked, so that both sides agree.
    if hasattr(sys, "set_int_max_str_digits"):
        sys.set_int_max_str_digits(4300)
    # RustPython's limit is 1000 frames from the module's; here main(),
    # run_code() and the wrapper's module frame come first (measured: the
    # program stops at the same depth as under RustPython).
    sys.setrecursionlimit(1000 + 4)
    if memory:
        resource.setrlimit(resource.RLIMIT_AS, (memory, memory))
    if cpu:
        resource.setrlimit(resource.RLIMIT_CPU, (cpu, cpu + 1))
    code, uncompilable = compile_program(source, path)
    if uncompilable:
        real_stdout.write(json.dumps(uncompilable))
        return
    needs_native = []
    reply = run_code(code, path, stdout_limit, sandbox_builtins(needs_native), needs_native)
    real_stdout.write(json.dumps(reply))


if __name__ == "__main__":
    main()

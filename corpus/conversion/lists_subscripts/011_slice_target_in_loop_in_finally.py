# id: conv-lists_subscripts-011
# construct: lists_subscripts
# modes: original,unstaged,staged
# expect: agree
# about: a slice assignment in a loop body (in a finally): converted, the target's bound and the value are both read through lambdas, and RustPython's symbol table gave the value's lambda the target's table (fuzz seed 21 index 42578, reduced; fixed in the vendored codegen's Stmt::Assign scan order)
# origin: stagecheck fuzz --seed 21 --jobs 2 --time 10m, uncompilable-unstaged-58386981, 2026-11-25
# status: fixed


def a(n):
    out = [0, 0, 0]
    try:
        b = 1
    finally:
        i = 0
        while i < n:
            out[b:] = [i] if i % 2 else [i, i]
            i += 1
    return out


print(a(0), a(1), a(2), a(3))

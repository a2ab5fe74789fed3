# id: conv-finally_exits-006
# construct: finally_exits
# modes: original,unstaged
# expect: agree
# reason: a RustPython 0.5 bug ran the inner finally a second time here (the outer finally's return unwound the inner try's fblock again); the vendored codegen compiles a finally body with only the fblocks below its own (executor/vendor/rustpython-codegen/PATCHES.md), and the original now prints what CPython prints
# about: a return in the outer finally overriding a return from a nested try whose finally has no exit

log = []


def f():
    try:
        try:
            return 'inner body'
        finally:
            log.append('inner finally')
    finally:
        log.append('outer finally')
        return 'outer'


print(f(), log)

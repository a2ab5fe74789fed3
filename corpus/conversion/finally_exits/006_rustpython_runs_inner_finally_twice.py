# id: conv-finally_exits-006
# construct: finally_exits
# modes: original,unstaged
# expect: diverged
# reason: accepted: a RustPython bug in the original: when an inner try's return is overridden by a return in the outer finally, RustPython 0.5 runs the inner finally a second time (log has 'inner finally' twice); CPython runs it once, as the converted program does (checked against python3 by tests/finally_exits.rs)
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

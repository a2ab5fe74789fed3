# id: staged-cache-002
# construct: cache
# modes: original,unstaged,staged
# expect: agree
# about: a Python global read by a staged function is part of the trace key: rebinding it retraces (a stale trace would diverge silently)

import stagecheck as sc

SCALE = 2

@sc.function
def f(x):
    return x * SCALE

print(f(sc.constant(5)))
SCALE = 10
print(f(sc.constant(5)))

# id: staged-guards-012
# construct: guards
# modes: original,unstaged,staged
# expect: agree
# about: a Python bool read from a class attribute decides a static if while tracing: flipping it retraces the other branch

import stagecheck as sc
class Flags:
    relu = True


@sc.function
def f(x):
    if Flags.relu:
        x = sc.maximum(x, 0)
    return x


x = sc.constant([-1, 2])
print(f(x))
Flags.relu = False
print(f(x))

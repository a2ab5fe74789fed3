# id: staged-if-010
# construct: if
# modes: original,unstaged,staged
# expect: agree
# about: a Python-level if inside a staged branch specialises that branch's trace

import stagecheck as sc

@sc.function
def f(x, double):
    if x > 0:
        if double:
            x = x * 2
        else:
            x = x + 100
    return x

print(f(sc.constant(3), True), f(sc.constant(3), False), f(sc.constant(-3), True))

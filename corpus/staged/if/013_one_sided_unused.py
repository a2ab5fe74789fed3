# id: staged-if-013
# construct: if
# modes: original,unstaged,staged
# expect: agree
# about: a tensor bound in one branch of a staged if, inside another staged if, and read after it only under a Python condition that is false: liveness keeps it an output, the branch that binds it gives it up (the conds have the outputs both branches bind), and every value read after is right on every path

import stagecheck as sc

@sc.function
def f(a, b, show):
    r = a * 2
    if b > 0:
        if a > 0:
            y = a + 100
            r = r + y
        else:
            r = r - 1
        if show:
            r = r + y
    else:
        r = r + b
    return r

for a, b in [(1, 2), (-1, 2), (1, -2), (3, 0)]:
    print(f(sc.constant(a), sc.constant(b), False))

# id: staged-composition-004
# construct: composition
# modes: original,unstaged,staged
# expect: agree
# about: found by stagecheck fuzz (tensor family, seed 1 index 96): a staged function traced inside a trace that is abandoned and traced again (a recursive call's first attempt) stays cached and callable; abandoned traces once renumbered the library under it

import stagecheck as sc


@sc.function
def helper(x):
    return x * 2


@sc.function
def rec(x, n):
    h = helper(x)
    if n > 0:
        r = rec(h, n - 1)
    else:
        r = h
    return r


print(rec(sc.constant(3), sc.constant(4)))
print(helper(sc.constant(5)), rec(sc.constant(1), sc.constant(0)))

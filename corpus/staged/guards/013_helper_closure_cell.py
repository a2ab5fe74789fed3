# id: staged-guards-013
# construct: guards
# modes: original,unstaged,staged
# expect: agree
# about: a closure cell of a helper made by a factory: the helper rebound to a new closure, and the cell itself changed by nonlocal, each retrace

import stagecheck as sc
def make(k):
    def scale(x):
        return x * k

    def bump():
        nonlocal k
        k = k + 1
    return scale, bump


scale, bump = make(2)


@sc.function
def f(x):
    return scale(x)


x = sc.constant(3)
print(f(x))
bump()
print(f(x))
scale, bump = make(7)
print(f(x))

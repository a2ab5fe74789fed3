# id: staged-guards-002
# construct: guards
# modes: original,unstaged,staged
# expect: agree
# about: a global read by a plain helper that a staged function calls: rebinding it retraces

import stagecheck as sc
k = 2


def scale(x):
    return x * k


@sc.function
def f(x):
    return scale(x) + 1


x = sc.constant([1, 2])
print(f(x))
k = 5
print(f(x))

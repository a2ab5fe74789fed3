# id: staged-guards-008
# construct: guards
# modes: original,unstaged,staged
# expect: agree
# about: an item of a global tuple read by a staged function: rebinding the tuple retraces

import stagecheck as sc
shift = (1.5, 2.5)


@sc.function
def f(x):
    return x + shift[1]


x = sc.constant(1.0)
print(f(x))
shift = (1.5, -2.5)
print(f(x))

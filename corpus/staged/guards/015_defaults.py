# id: staged-guards-015
# construct: guards
# modes: original,unstaged,staged
# expect: agree
# about: a helper's default argument replaced between calls (__defaults__): retraces

import stagecheck as sc
def shifted(x, by=1):
    return x + by


@sc.function
def f(x):
    return shifted(x)


x = sc.constant(1)
print(f(x))
shifted.__defaults__ = (5,)
print(f(x))

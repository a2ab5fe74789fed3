# id: staged-guards-011
# construct: guards
# modes: original,unstaged,staged
# expect: agree
# about: a Python scalar used in a shape (read through a helper): changing it retraces with the new shape

import stagecheck as sc
width = 2


def shape():
    return [width]


@sc.function
def f(x):
    return sc.zeros(shape()) + x


x = sc.constant(1.0)
print(f(x))
width = 3
print(f(x))

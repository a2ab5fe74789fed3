# id: staged-guards-005
# construct: guards
# modes: original,unstaged,staged
# expect: agree
# about: an attribute of an imported module read by a staged function: assigning it retraces

import stagecheck as sc
import math


@sc.function
def f(x):
    return x * math.e


x = sc.constant(2.0)
print(f(x))
math.e = 3.0
print(f(x))

# id: staged-guards-007
# construct: guards
# modes: original,unstaged,staged
# expect: agree
# about: an item of a global list read by a staged function: assigning it retraces

import stagecheck as sc
w = [2, 3]


@sc.function
def f(x):
    return x * w[0] + w[1]


x = sc.constant([1, 2])
print(f(x))
w[0] = 10
print(f(x))

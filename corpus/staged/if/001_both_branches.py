# id: staged-if-001
# construct: if
# modes: original,unstaged,staged
# expect: agree
# about: a staged if assigning the same variable in both branches

import stagecheck as sc

@sc.function
def f(x):
    if sc.reduce_sum(x) > 0:
        y = x * 2
    else:
        y = -x
    return y

print(f(sc.constant([1, 2, 3])))
print(f(sc.constant([-1, -2, 0])))

# id: staged-guards-009
# construct: guards
# modes: original,unstaged,staged
# expect: agree
# about: the length of a global list, a Python loop's trip count while tracing: appending retraces

import stagecheck as sc
steps = [1, 2]


@sc.function
def f(x):
    for s in steps:
        x = x + s
    return x, len(steps)


x = sc.constant(0)
print(f(x))
steps.append(3)
print(f(x))

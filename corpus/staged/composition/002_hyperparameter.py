# id: staged-composition-002
# construct: composition
# modes: original,unstaged,staged
# expect: agree
# about: an outer staged function passing a Python hyper-parameter to an inner one: the inner traced per value

import stagecheck as sc

@sc.function
def scale(x, k):
    return x * k

@sc.function
def both(x):
    return scale(x, 2) + scale(x, 3)

print(both(sc.constant([1, 2, 3])), scale(sc.constant(4), 5))

# id: staged-cache-001
# construct: cache
# modes: original,unstaged,staged
# expect: agree
# about: the trace cache keys on dtype and shape: three signatures, three graphs, results exact

import stagecheck as sc

@sc.function
def total(x):
    return sc.reduce_sum(x * x)

print(total(sc.constant([1, 2, 3])))
print(total(sc.constant([[1.5, 2.0]])))
print(total(sc.constant(4)))
print(total(sc.constant([4, 5, 6])))

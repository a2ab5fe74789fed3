# id: staged-variables-002
# construct: variables
# modes: original,unstaged,staged
# expect: agree
# about: a Variable assigned in one branch of a staged if and read as a tensor in arithmetic and sc ops: the branch taken at each call decides

import stagecheck as sc

best = sc.Variable([0.0, 0.0])

@sc.function
def update(x):
    if sc.reduce_sum(x) > sc.reduce_sum(best):
        best.assign(x)
        sc.print('new best', best)
    else:
        best.assign_sub(sc.constant([0.5, 0.5]))
    return sc.maximum(best, 0.0) * 2.0

for v in ([1.0, 2.0], [0.5, 0.5], [3.0, 1.0], [0.0, 0.0]):
    print(update(sc.constant(v)))
print(best)

# id: staged-seeds-002
# construct: seeds
# modes: original,unstaged,staged
# expect: agree
# about: Snek fig. 10: aggregate(x) sums x, x-1, ..., 1 in a while loop on a staged condition

import stagecheck as sc

@sc.function
def aggregate(x):
    ret = sc.constant(0)
    while x > 0:
        ret = ret + x
        x = x - 1
    return ret

print(aggregate(sc.constant(10)))
print(aggregate(sc.constant(0)))
print(aggregate(sc.constant(-3)))

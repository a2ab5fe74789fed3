# id: staged-seeds-001
# construct: seeds
# modes: original,unstaged,staged
# expect: agree
# about: Snek fig. 6: power(x, k) with a Python exponent: the recursion unrolls at trace time, one graph per k

import stagecheck as sc

@sc.function
def power(x, k):
    if k == 0:
        return sc.ones(x.shape, x.dtype)
    return x * power(x, k - 1)

x = sc.constant([1.5, -2.0, 3.0])
print(power(x, 0))
print(power(x, 3))
print(power(sc.constant(2), 10))

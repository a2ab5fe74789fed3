# id: staged-cache-003
# construct: cache
# modes: original,unstaged,staged
# expect: agree
# about: keyword arguments and defaults specialise the trace

import stagecheck as sc

@sc.function
def affine(x, a=1, b=0):
    return x * a + b

x = sc.constant([1.0, 2.0])
print(affine(x), affine(x, a=3), affine(x, b=-1.5), affine(x, 2, 2))

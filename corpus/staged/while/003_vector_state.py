# id: staged-while-003
# construct: while
# modes: original,unstaged,staged
# expect: agree
# about: a staged while over a vector state, float32 exact

import stagecheck as sc

@sc.function
def decay(x, n):
    i = sc.constant(0)
    while i < n:
        x = x * 0.5 + 0.25
        i = i + 1
    return x

print(decay(sc.constant([1.0, 2.0, -3.0]), sc.constant(7)))

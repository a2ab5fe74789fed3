# id: staged-for-005
# construct: for
# modes: original,unstaged,staged
# expect: agree
# about: a for over Python's range in a staged function unrolls at trace time

import stagecheck as sc

@sc.function
def poly(x, coeffs):
    y = sc.zeros(x.shape)
    for c in coeffs:
        y = y * x + c
    return y

print(poly(sc.constant([0.5, 2.0]), (1.0, -2.0, 3.0)))
print(poly(sc.constant([0.5, 2.0]), (4.0,)))

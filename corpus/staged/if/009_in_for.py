# id: staged-if-009
# construct: if
# modes: original,unstaged,staged
# expect: agree
# about: a staged if inside a staged for over a vector

import stagecheck as sc

@sc.function
def relu_sum(xs):
    pos = sc.constant(0.0)
    neg = sc.constant(0.0)
    for x in xs:
        if x > 0:
            pos = pos + x
        else:
            neg = neg - x
    return pos, neg

print(relu_sum(sc.constant([1.5, -2.0, 3.25, -0.5])))

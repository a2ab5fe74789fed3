# id: staged-assert-001
# construct: assert
# modes: original,unstaged,staged
# expect: agree
# about: an assert on a tensor condition in a staged loop: holds on every iteration of both calls

import stagecheck as sc

@sc.function
def normalise(xs):
    total = sc.constant(0.0)
    for x in xs:
        assert x >= 0.0, 'negative entry'
        total = total + x
    return xs / total

print(normalise(sc.constant([1.0, 3.0])))
print(normalise(sc.constant([2.0, 2.0, 4.0])))

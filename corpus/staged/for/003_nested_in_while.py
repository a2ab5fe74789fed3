# id: staged-for-003
# construct: for
# modes: original,unstaged,staged
# expect: agree
# about: a staged for nested in a staged while

import stagecheck as sc

@sc.function
def f(m, rounds):
    acc = sc.zeros((3,))
    r = sc.constant(0)
    while r < rounds:
        for row in m:
            acc = acc * 0.5 + row
        r = r + 1
    return acc

print(f(sc.constant([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]]), sc.constant(3)))

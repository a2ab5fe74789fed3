# id: staged-while-008
# construct: while
# modes: original,unstaged,staged
# expect: agree
# about: a chained comparison as a staged while test: the middle operand once per test

import stagecheck as sc

@sc.function
def f(x):
    steps = sc.constant(0)
    while 0 < x < 100:
        x = x * 3 - 1
        steps = steps + 1
    return x, steps

print(f(sc.constant(1)), f(sc.constant(5)), f(sc.constant(0)))

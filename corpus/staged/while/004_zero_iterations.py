# id: staged-while-004
# construct: while
# modes: original,unstaged,staged
# expect: agree
# about: a staged while that runs zero times

import stagecheck as sc

@sc.function
def f(x):
    while x > 100:
        x = x - 1
    return x

print(f(sc.constant(5)), f(sc.constant(103)))

# id: staged-composition-001
# construct: composition
# modes: original,unstaged,staged
# expect: agree
# about: a staged function called from a staged loop body: a call node per iteration

import stagecheck as sc

@sc.function
def step(x):
    return x * 0.5 + 1.0

@sc.function
def iterate(x, n):
    i = sc.constant(0)
    while i < n:
        x = step(x)
        i = i + 1
    return x

print(iterate(sc.constant([0.0, 8.0]), sc.constant(10)))

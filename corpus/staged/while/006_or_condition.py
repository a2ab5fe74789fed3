# id: staged-while-006
# construct: while
# modes: original,unstaged,staged
# expect: agree
# about: a staged while whose test is a lazy or

import stagecheck as sc

@sc.function
def f(a, b):
    while a < 10 or b < 5:
        a = a + 3
        b = b + 1
    return a, b

print(f(sc.constant(0), sc.constant(0)), f(sc.constant(20), sc.constant(2)), f(sc.constant(20), sc.constant(9)))

# id: staged-if-008
# construct: if
# modes: original,unstaged,staged
# expect: agree
# about: a staged if assigning two variables through tuple unpacking

import stagecheck as sc

@sc.function
def order(a, b):
    if a > b:
        a, b = b, a
    return a, b

print(order(sc.constant(5), sc.constant(2)), order(sc.constant(1), sc.constant(9)))

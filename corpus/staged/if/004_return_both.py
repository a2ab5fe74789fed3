# id: staged-if-004
# construct: if
# modes: original,unstaged,staged
# expect: agree
# about: return in both branches of a staged if

import stagecheck as sc

@sc.function
def sign(x):
    if x >= 0:
        return sc.constant(1)
    else:
        return sc.constant(-1)

print(sign(sc.constant(3)), sign(sc.constant(-3)))

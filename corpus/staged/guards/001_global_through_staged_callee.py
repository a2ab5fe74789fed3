# id: staged-guards-001
# construct: guards
# modes: original,unstaged,staged
# expect: agree
# about: found by stagecheck fuzz --seed 21 (issue 23, both findings reduced to this): a global read by a staged function called from another staged function; the outer trace must guard it too, or the second call runs the stale graph (printed 0)

import stagecheck as sc
a = 0


@sc.function
def b():
    return a


@sc.function
def c():
    return b()


c()
a = 1
print(c())

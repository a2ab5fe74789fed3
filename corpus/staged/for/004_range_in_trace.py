# id: staged-for-004
# construct: for
# modes: original,unstaged,staged
# expect: agree
# about: sc.range with Python bounds inside a trace is a symbolic tensor: the for over it is staged (Gather per step)

import stagecheck as sc

@sc.function
def squares(x):
    total = x
    for i in sc.range(5):
        total = total + i * i
    return total

print(squares(sc.constant(1)), squares(sc.constant(-30)))

# id: staged-print-003
# construct: print
# modes: original,unstaged,staged
# expect: agree
# about: print inside a staged branch runs at every execution that takes the branch (it was refused: it ran once, when traced)

import stagecheck as sc

@sc.function
def f(x):
    if x > 0:
        print('positive')
        x = x - 1
    return x

print(f(sc.constant(1)))

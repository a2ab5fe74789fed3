# id: staged-if-005
# construct: if
# modes: original,unstaged,staged
# expect: agree
# about: control flow on a Python value runs at trace time and leaves no node (seed 000 fig. 1b)

import stagecheck as sc

@sc.function
def f(x, mode):
    if mode == 'double':
        x = x * 2
    elif mode == 'square':
        x = x * x
    for _ in range(3):
        x = x + 1
    return x

print(f(sc.constant(4), 'double'), f(sc.constant(4), 'square'), f(sc.constant(4), 'none'))

# id: staged-print-005
# construct: print
# modes: original,unstaged,staged
# expect: refused
# reason: StagingError: print of a dict holding a symbolic tensor
# about: a dict holding a symbolic tensor is formatted when traced, which would print a placeholder: refused

import stagecheck as sc

@sc.function
def f(x):
    print({'x': x})
    return x

f(sc.constant(1))

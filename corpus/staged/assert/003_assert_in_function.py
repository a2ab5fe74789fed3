# id: staged-assert-003
# construct: assert
# modes: original,unstaged,staged
# expect: agree
# about: an assert on a symbolic tensor that holds: a cond whose false branch raises, never taken (it was refused)

import stagecheck as sc

@sc.function
def f(x):
    assert x > 0, 'must be positive'
    return x

print(f(sc.constant(1)))

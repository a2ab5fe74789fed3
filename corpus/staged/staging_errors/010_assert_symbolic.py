# id: staged-staging_errors-010
# construct: staging_errors
# modes: original,unstaged,staged
# expect: refused
# reason: StagingError: an assert on a symbolic tensor is not staged yet
# about: an assert on a symbolic tensor

import stagecheck as sc

@sc.function
def f(x):
    assert x > 0, 'must be positive'
    return x

print(f(sc.constant(1)))

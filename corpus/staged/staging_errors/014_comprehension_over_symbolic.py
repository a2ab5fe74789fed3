# id: staged-staging_errors-014
# construct: staging_errors
# modes: original,unstaged,staged
# expect: refused
# reason: StagingError: iterating over a symbolic tensor in Python
# about: a Python comprehension over a symbolic tensor

import stagecheck as sc

@sc.function
def f(xs):
    return sc.stack([x * 2 for x in xs])

print(f(sc.constant([1, 2, 3])))

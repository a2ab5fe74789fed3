# id: staged-staging_errors-012
# construct: staging_errors
# modes: original,unstaged,staged
# expect: refused
# reason: StagingError: the two values of a staged conditional expression differ
# about: the two values of a staged conditional expression differ in dtype

import stagecheck as sc

@sc.function
def f(x):
    return x if x > 0 else sc.cast(x, sc.float32)

print(f(sc.constant(3)))

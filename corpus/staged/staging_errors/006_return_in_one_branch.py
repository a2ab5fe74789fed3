# id: staged-staging_errors-006
# construct: staging_errors
# modes: original,unstaged,staged
# expect: refused
# reason: StagingError: a return in one branch of a staged if only
# about: a return in one staged branch only

import stagecheck as sc

@sc.function
def f(x):
    if x > 0:
        return x
    x = x * 2
    return x

print(f(sc.constant(1)))

# id: staged-staging_errors-001
# construct: staging_errors
# modes: original,unstaged,staged
# expect: refused
# reason: StagingError: is bound in the true branch of a staged if only
# about: a variable bound in only one branch of a staged if and used after it

import stagecheck as sc

@sc.function
def f(x):
    if x > 0:
        y = x
    return y

print(f(sc.constant(1)))

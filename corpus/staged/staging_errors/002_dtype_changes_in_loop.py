# id: staged-staging_errors-002
# construct: staging_errors
# modes: original,unstaged,staged
# expect: refused
# reason: StagingError: changes from int32
# about: a loop variable whose dtype changes across iterations

import stagecheck as sc

@sc.function
def f(x, n):
    i = sc.constant(0)
    while i < n:
        x = sc.cast(x, sc.float32)
        i = i + 1
    return x

print(f(sc.constant(1), sc.constant(3)))

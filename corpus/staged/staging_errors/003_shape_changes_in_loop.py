# id: staged-staging_errors-003
# construct: staging_errors
# modes: original,unstaged,staged
# expect: refused
# reason: StagingError: loop variable 'x' changes
# about: a loop variable whose shape changes across iterations

import stagecheck as sc

@sc.function
def f(x, n):
    i = sc.constant(0)
    while i < n:
        x = sc.concat([x, x], 0)
        i = i + 1
    return x

print(f(sc.constant([1]), sc.constant(3)))

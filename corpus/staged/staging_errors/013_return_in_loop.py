# id: staged-staging_errors-013
# construct: staging_errors
# modes: original,unstaged,staged
# expect: refused
# reason: StagingError: a return in one branch of a staged if only
# about: a return inside a staged while loop

import stagecheck as sc

@sc.function
def f(n):
    i = sc.constant(0)
    while i < n:
        if i * i > 10:
            return i
        i = i + 1
    return n

print(f(sc.constant(10)))

# id: staged-staging_errors-007
# construct: staging_errors
# modes: original,unstaged,staged
# expect: refused
# reason: StagingError: 'n' is a Python value that a staged while loop changes
# about: a Python counter changed by a staged loop

import stagecheck as sc

@sc.function
def f(x):
    n = 0
    while x > 0:
        x = x - 1
        n += 1
    return x, n

print(f(sc.constant(3)))

# id: staged-staging_errors-004
# construct: staging_errors
# modes: original,unstaged,staged
# expect: refused
# reason: StagingError: print inside staged control flow
# about: print inside a staged branch would run once at trace time

import stagecheck as sc

@sc.function
def f(x):
    if x > 0:
        print('positive')
        x = x - 1
    return x

print(f(sc.constant(1)))

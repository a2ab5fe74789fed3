# id: staged-staging_errors-015
# construct: staging_errors
# modes: original,unstaged,staged
# expect: refused
# reason: StagingError: print inside a staged function
# about: print inside a staged function would run once per trace, not per call

import stagecheck as sc

@sc.function
def f(x):
    print('called')
    return x + 1

print(f(sc.constant(1)))
print(f(sc.constant(2)))

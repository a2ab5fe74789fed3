# id: staged-staging_errors-005
# construct: staging_errors
# modes: original,unstaged,staged
# expect: refused
# reason: StagingError: list.append inside staged control flow
# about: appending to an outer list inside a staged loop

import stagecheck as sc

log = []

@sc.function
def f(x):
    while x > 0:
        log.append(1)
        x = x - 1
    return x

print(f(sc.constant(3)), log)

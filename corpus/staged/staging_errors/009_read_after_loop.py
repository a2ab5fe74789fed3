# id: staged-staging_errors-009
# construct: staging_errors
# modes: original,unstaged,staged
# expect: refused
# reason: StagingError: 'last' is bound only inside staged control flow and read after it
# about: a name bound only inside a staged loop and read after it

import stagecheck as sc

@sc.function
def f(n):
    i = sc.constant(0)
    while i < n:
        last = i * 2
        i = i + 1
    return last

print(f(sc.constant(3)))

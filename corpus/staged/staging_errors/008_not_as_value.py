# id: staged-staging_errors-008
# construct: staging_errors
# modes: original,unstaged,staged
# expect: refused
# reason: StagingError: `not` of a symbolic tensor used as a value
# about: `not t` as a value is a Python bool in the original; a graph can only give a tensor (AutoGraph silently changes the type)

import stagecheck as sc

@sc.function
def f(x):
    flag = not (x > 0)
    return x, flag

print(f(sc.constant(3)))

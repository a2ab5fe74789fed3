# id: staged-staging_errors-011
# construct: staging_errors
# modes: original,unstaged,staged
# expect: refused
# reason: StagingError: float() of a symbolic tensor
# about: float() of a symbolic tensor while tracing

import stagecheck as sc

@sc.function
def f(x):
    return float(x) * 2.0

print(f(sc.constant(1.5)))

# id: staged-staging_errors-016
# construct: staging_errors
# modes: original,unstaged,staged
# expect: refused
# reason: StagingError: the trace of 'f' reads w, an instance of Weights
# about: a staged function reads an item of a list subclass: its items cannot be checked before a trace is reused without running the subclass's code, so the read is refused rather than baked in (issue 23)

import stagecheck as sc


class Weights(list):
    pass


w = Weights([2, 3])


@sc.function
def f(x):
    return x * w[0]


print(f(sc.constant(1)))

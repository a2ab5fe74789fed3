# id: staged-raise-012
# construct: raise
# modes: original,unstaged,staged
# expect: refused
# reason: StagingError: a ValueError raised in staged control flow cannot be deferred to execution: its message shows a symbolic tensor, whose value is known only at execution
# about: an exception whose message shows a tensor's value: known only at execution
import stagecheck as sc

@sc.function
def f(x):
    if x > 0:
        raise ValueError('bad value %s' % x)
    return x

print(f(sc.constant(-1)))

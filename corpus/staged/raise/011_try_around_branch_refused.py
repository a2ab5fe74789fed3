# id: staged-raise-011
# construct: raise
# modes: original,unstaged,staged
# expect: refused
# reason: StagingError: a ValueError raised in staged control flow cannot be deferred to execution: it would reach a try or with statement of the staged code, whose handler cannot run at execution
# about: a raise in a staged branch inside a try of the staged function: the handler would run at trace time or never, so it is refused
import stagecheck as sc

@sc.function
def f(x):
    try:
        if x > 0:
            raise ValueError('positive')
    except ValueError:
        x = x * 0
    return x

print(f(sc.constant(-1)))
print(f(sc.constant(1)))

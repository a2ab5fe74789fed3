# id: staged-raise-005
# construct: raise
# modes: original,unstaged,staged
# expect: agree
# about: issue 25's fuzz finding (reduced, seed 77): the right operand of an `and` that short-circuits is never read
import stagecheck as sc

@sc.function
def a():
    if sc.constant(0) < 0 and n10:
        pass

a().numpy()

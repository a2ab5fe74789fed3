# id: staged-raise-010
# construct: raise
# modes: original,unstaged,staged
# expect: agree
# about: a local unbound before a staged if is read in its else branch: UnboundLocalError (the VM's message) only where that branch runs
import stagecheck as sc

@sc.function
def f(x):
    if x > 5:
        x = x + 1
    else:
        x = y * 2
    y = x
    return y

print(f(sc.constant(9)))
f(sc.constant(-2))

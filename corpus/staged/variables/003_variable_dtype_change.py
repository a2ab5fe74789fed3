# id: staged-variables-003
# construct: variables
# modes: original,unstaged,staged
# expect: refused
# reason: StagingError: assigning a float32 () value to an sc.Variable of int32 ()
# about: assigning a value of another dtype to a Variable inside a staged function: a StagingError naming the line (the graph's variable has one dtype)

import stagecheck as sc

v = sc.Variable(1)

@sc.function
def f(x):
    v.assign(x)
    return x

f(sc.constant(2.5))

# id: autograph-006
# construct: lambda_late
# modes: original,unstaged
# expect: diverged
# reason: open: global r differs in unstaged
# target: autograph
# version: TensorFlow 2.21.0
# about: lambdas made in a loop see the loop variable's value at creation (0, 1, 2) where Python's see its last value (2, 2, 2)
# origin: the prototype's kinds (issue 21), written small by hand; fuzz --target autograph finds it too (see README.md)
# status: open
# tf-issue: known: tensorflow/tensorflow#56089 ([Autograph] Inconsistent behaviour with lambda variable in loop; closed as stale), test added by tensorflow/tensorflow#56119

def f():
    fns = []
    for i in range(3):
        fns.append(lambda: i)
    return [g() for g in fns]
r = f()

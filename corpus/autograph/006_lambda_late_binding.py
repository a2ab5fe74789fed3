# id: autograph-006
# construct: lambda_late
# modes: original,unstaged
# expect: diverged
# reason: open: global r differs in unstaged
# target: autograph
# version: TensorFlow 2.21.0
# about: lambdas made in a loop see the loop variable's value at creation (0, 1, 2) where Python's see its last value (2, 2, 2)
# origin: the prototype's kinds (issue 21), written small by hand; fuzz --target autograph --seed 21 (18 min, 2 jobs) found it: reports/2026-11-26T02-47-16Z-autograph/findings/stdout-unstaged-08a5e73d, -94d849e0 (lambdas made in a loop, printed)
# status: open
# tf-issue: known: tensorflow/tensorflow#56089 ([Autograph] Inconsistent behaviour with lambda variable in loop; closed as stale), test added by tensorflow/tensorflow#56119

def f():
    fns = []
    for i in range(3):
        fns.append(lambda: i)
    return [g() for g in fns]
r = f()

# id: autograph-002
# construct: chained
# modes: original,unstaged
# expect: diverged
# reason: open: stdout line 2: original "<end of output>"; unstaged "mid"
# target: autograph
# version: TensorFlow 2.21.0
# about: a chained comparison 1 < mid() < 3 evaluates its middle operand twice after conversion (mid prints twice)
# origin: the prototype's kinds (issue 21), written small by hand; not among the findings of fuzz --target autograph --seed 21 (18 min, 2 jobs)
# status: open
# tf-issue: not found (searched tensorflow/tensorflow issues: chained comparison evaluated twice)

def mid():
    print("mid")
    return 2
def f():
    return 1 < mid() < 3
r = f()

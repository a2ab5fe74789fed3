# id: autograph-005
# construct: del_unbound
# modes: original,unstaged
# expect: diverged
# reason: open: global r differs in unstaged
# target: autograph
# version: TensorFlow 2.21.0
# about: del of a local that is not bound raises UnboundLocalError in Python; converted, it succeeds
# origin: the prototype's kinds (issue 21), written small by hand; not among the findings of fuzz --target autograph --seed 21 (18 min, 2 jobs)
# status: open
# tf-issue: not found (searched: autograph del undefined variable UnboundLocalError)

def f():
    del x
    x = 1
try:
    f()
    r = "no error"
except UnboundLocalError:
    r = "UnboundLocalError"

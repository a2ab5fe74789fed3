# id: autograph-010
# construct: walrus_and
# modes: original,unstaged
# expect: diverged
# reason: open: stdout line 1: original "0"; unstaged "<end of output>"
# target: autograph
# version: TensorFlow 2.21.0
# about: a walrus inside `and`/`or` in a converted function raises KeyError <class 'gast.gast.And'> at run time (an internal error of AutoGraph's conversion, surfacing as the program's own exception)
# origin: seed 21 index 805 family Plain generator 0.1.0, 2026-11-26, reports/2026-11-26T02-47-16Z-autograph/findings/stdout-unstaged-eb476908/reduced.py
# status: open
# tf-issue: not found (searched: tensorflow autograph KeyError gast And)

def a():
    print((b := 0 and 0))


def c():
    return a()


try:
    c()
except LookupError as d:
    pass

# id: autograph-007
# construct: unbound_message
# modes: original,unstaged
# expect: diverged
# reason: open: global m differs in unstaged
# target: autograph
# version: TensorFlow 2.21.0
# about: reading an unbound local raises UnboundLocalError with AutoGraph's words ("'v' is used before assignment"), not Python's
# origin: the prototype's kinds (issue 21), written small by hand; fuzz --target autograph --seed 21 (18 min, 2 jobs) found it: reports/2026-11-26T02-47-16Z-autograph/findings/stdout-unstaged-754c118b (65 programs), -28b53665 (read after del)
# status: open
# tf-issue: not found (searched: autograph "is used before assignment")

def f(c):
    if c:
        v = 1
    return v
try:
    f(False)
except UnboundLocalError as e:
    m = str(e)

# id: autograph-011
# construct: global_in_if
# modes: original,unstaged
# expect: diverged
# reason: open: global g differs in unstaged
# target: autograph
# version: TensorFlow 2.21.0
# about: a `global` statement inside an if branch (taken or not: in Python it holds for the whole function) is lost after conversion: the assignment after the if binds a local, and the global is never created
# origin: fuzz --target autograph --seed 2101 (30 min, 2 jobs): reports/2026-11-26T04-58-12Z-autograph/findings/global-unstaged-2be3b608, -67ce00ce, -ca937d3b (reduced: `if 0: global b` then `b = 0`), written small by hand
# status: open
# tf-issue: not found (searched tensorflow/tensorflow issues: autograph global statement inside if branch; autograph global keyword variable modification lost)

def f(flag):
    if flag:
        global g
    g = 1


f(False)

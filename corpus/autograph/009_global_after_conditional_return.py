# id: autograph-009
# construct: global_return
# modes: original,unstaged
# expect: diverged
# reason: open: stdout line 1: original "1"; unstaged "0"
# target: autograph
# version: TensorFlow 2.21.0
# about: a global assigned after an `if ...: return` in a converted function is lost (AutoGraph lowers the rest of the body into the if's else branch, whose state carries no globals)
# origin: seed 21 index 28 family Plain generator 0.1.0, 2026-11-26, reports/2026-11-26T02-47-16Z-autograph/findings/stdout-unstaged-b2ba76cc/reduced.py
# status: open
# tf-issue: not found (searched: autograph global assigned in loop/if not updated)

a = 0


def b():

    def c():
        global a
        if 0:
            return 0
        a = 1
    c()
    return a


print(b())

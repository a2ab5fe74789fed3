# id: autograph-014
# construct: match_capture
# modes: original,unstaged
# expect: diverged
# reason: open: global r differs in unstaged
# target: autograph
# version: TensorFlow 2.21.0
# about: a name bound by a match capture pattern (`case y:`) inside a converted if keeps its value from before the if: AutoGraph's analysis does not see the pattern's binding, so the if's branch function does not carry it out
# origin: fuzz --target autograph --seed 2101 (30 min, 2 jobs): reports/2026-11-26T04-58-12Z-autograph/findings/stdout-unstaged-e296f79d (reduced: `if 1: match 1: ... case v9: pass` then `print(v9)`), written small by hand
# status: open
# tf-issue: not found (searched tensorflow/tensorflow issues: autograph match statement case pattern python 3.10)

def f():
    y = 0
    if True:
        match 5:
            case 0:
                pass
            case y:
                pass
    return y


r = f()

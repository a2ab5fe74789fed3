# id: autograph-004
# construct: try_else
# modes: original,unstaged
# expect: diverged
# reason: open: stdout line 1: original "<end of output>"; unstaged "else ran"
# target: autograph
# version: TensorFlow 2.21.0
# about: the else of a try runs after a return inside the try (Python skips it)
# origin: the prototype's kinds (issue 21), written small by hand; not among the findings of fuzz --target autograph --seed 21 (18 min, 2 jobs)
# status: open
# tf-issue: not found (searched: autograph try except else return)

def f():
    try:
        return 1
    except KeyError:
        pass
    else:
        print("else ran")
f()

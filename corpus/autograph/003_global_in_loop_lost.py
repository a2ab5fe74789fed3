# id: autograph-003
# construct: global_loop
# modes: original,unstaged
# expect: diverged
# reason: open: global g differs in unstaged
# target: autograph
# version: TensorFlow 2.21.0
# about: a global assigned in a loop body of a converted function, and not read after the loop, keeps its old value
# origin: the prototype's kinds (issue 21), written small by hand; not among the findings of fuzz --target autograph --seed 21 (18 min, 2 jobs)
# status: open
# tf-issue: not found (searched: autograph global assigned in loop not updated; tensorflow#33689 is tf.function variable creation, another matter)

g = 0
def f():
    global g
    for i in range(3):
        g = i
f()

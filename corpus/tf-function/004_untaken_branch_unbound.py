# id: tf-function-004
# construct: untaken_branch
# modes: original,staged
# expect: diverged
# reason: open: global r differs in staged
# target: tf-function
# version: TensorFlow 2.21.0
# about: a branch of a tensor-dependent if that Python never takes reads a local bound later: tracing both branches raises NameError (free variable) where the eager program completes
# origin: written small by hand after generated tensor programs (seed 5) diverged under the tf-function target; 001 and 002 are the prototype's two tf.function kinds (issue 21)
# status: open
# tf-issue: not found (searched: tf.function both branches traced unbound NameError free variable)

import stagecheck as sc
@sc.function
def f(x):
    if x > 5:
        x = z
    z = x
    return x
try:
    r = f(sc.constant(1))
except NameError as e:
    r = str(e)

# id: tf-function-002
# construct: global_rebound
# modes: original,staged
# expect: diverged
# reason: open: global b differs in staged
# target: tf-function
# version: TensorFlow 2.21.0
# about: a global rebound between two calls of a staged function is read at its first value (the trace's constant)
# origin: written small by hand after generated tensor programs (seed 5) diverged under the tf-function target; 001 and 002 are the prototype's two tf.function kinds (issue 21)
# status: open
# tf-issue: documented behaviour (TensorFlow guide, tf.function: Python side effects and Python values are seen only while tracing); no bug to file

import stagecheck as sc
k = 1
@sc.function
def f(x):
    return x * k
a = f(sc.constant(2))
k = 5
b = f(sc.constant(2))

# id: tf-function-003
# construct: list_append
# modes: original,staged
# expect: diverged
# reason: open: global seen differs in staged
# target: tf-function
# version: TensorFlow 2.21.0
# about: a Python list appended to inside a staged function grows once per trace, not once per call
# origin: written small by hand after generated tensor programs (seed 5) diverged under the tf-function target; 001 and 002 are the prototype's two tf.function kinds (issue 21)
# status: open
# tf-issue: documented behaviour (TensorFlow guide, tf.function: Python side effects and Python values are seen only while tracing); no bug to file

import stagecheck as sc
seen = []
@sc.function
def f(x):
    seen.append(1)
    return x
f(sc.constant(1))
f(sc.constant(2))
n = len(seen)

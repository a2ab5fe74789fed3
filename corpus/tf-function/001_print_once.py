# id: tf-function-001
# construct: print_once
# modes: original,staged
# expect: diverged
# reason: open: stdout line 2: original "f called"; staged "<end of output>"
# target: tf-function
# version: TensorFlow 2.21.0
# about: a Python print in a staged function prints once (when traced) where the eager program prints at every call
# origin: written small by hand after generated tensor programs (seed 5) diverged under the tf-function target; 001 and 002 are the prototype's two tf.function kinds (issue 21)
# status: open
# tf-issue: documented behaviour (TensorFlow guide, tf.function: Python side effects and Python values are seen only while tracing); no bug to file

import stagecheck as sc
@sc.function
def f(x):
    sc.print("f called")
    return x + 1
for i in range(3):
    r = f(sc.constant(i))

# id: tf-function-005
# construct: unbound_message
# modes: original,staged
# expect: diverged
# reason: open: global message differs in staged
# target: tf-function
# version: TensorFlow 2.21.0
# about: reading an unbound local in a tf.function raises UnboundLocalError with AutoGraph's words ("'b' is used before assignment") where the eager program has Python's ("cannot access local variable 'b' where it is not associated with a value"); the tf.function side of autograph-007
# origin: fuzz --target tf-function --seed 2102 (30 min, 2 jobs): reports/2026-11-26T05-29-21Z-tf-function/findings/stdout-staged-7bbfcca1 (reduced: `if 0: b = 0` / `else: b`), written small by hand
# status: open
# tf-issue: not found (searched: autograph "is used before assignment")

import stagecheck as sc


@sc.function
def f():
    if False:
        b = 0
    else:
        b


try:
    f()
except NameError as e:
    message = str(e)

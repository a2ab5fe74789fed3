# id: tf-function-006
# construct: tensor_and
# modes: original,staged
# expect: diverged
# reason: open: global caught differs in staged
# target: tf-function
# version: TensorFlow 2.21.0
# about: the right operand of `and` whose left operand is a tensor is evaluated while tracing even where the eager program short-circuits (the left is False): its unbound read raises NameError where the eager program's assert fails with AssertionError
# origin: fuzz --target tf-function --seed 2102 (30 min, 2 jobs): reports/2026-11-26T05-29-21Z-tf-function/findings/stdout-staged-49d2d255 (reduced: `assert 0 <= sc.constant(-1) and b, 'check8 failed'` before `b = 0`), written small by hand
# status: open
# tf-issue: not found (searched: tf.function autograph and operator tensor short circuit evaluates right operand NameError)

import stagecheck as sc


@sc.function
def f(x):
    assert x > 0 and later, 'x is not positive'
    later = 1


try:
    f(sc.constant(-1))
except (AssertionError, NameError) as e:
    caught = type(e).__name__

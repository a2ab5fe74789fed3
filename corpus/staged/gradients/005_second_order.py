# id: staged-gradients-005
# construct: gradients
# modes: original,unstaged,staged,staged-gpu
# expect: agree
# about: a gradient of a gradient (TF Eager's Listing 1, nested tapes) through a staged call holding a staged if: the outer tape records the inner gradient's backward ops, which read the values the call kept for its backward pass (so those are connected too); checked against finite differences of the first gradient by --gradcheck

import stagecheck as sc


@sc.function
def g(x):
    h = sc.tanh(x * 0.5)
    if sc.reduce_sum(h) > 0.0:
        y = h * h * x
    else:
        y = sc.exp(h) * x
    return sc.reduce_sum(y * sc.sigmoid(x))


for v in (2.0, -1.5):
    with sc.GradientTape() as t1:
        x = sc.constant([v, 0.5])
        t1.watch(x)
        with sc.GradientTape() as t2:
            t2.watch(x)
            y = g(x)
        dy = t2.gradient(y, x)
        s = sc.reduce_sum(dy * sc.constant([1.0, 0.25]))
    print(dy, t1.gradient(s, x))

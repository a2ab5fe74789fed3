# id: staged-gradients-001
# construct: gradients
# modes: original,unstaged,staged,staged-gpu
# expect: agree
# about: TF Eager (seed 002 §4.2): gradients through Python control flow with a tape, eagerly and inside sc.function (a staged if becomes a cond over the branches' gradients, a staged call a forward function returning what the backward needs), and nested tapes for a second derivative (Listing 1)

import stagecheck as sc


@sc.function
def f(x, w):
    y = x * w
    if sc.reduce_sum(y) > 0.0:
        y = sc.tanh(y) * 2.0
    else:
        y = sc.sigmoid(y) + x * x
    for k in range(3):
        y = y * 0.5 + sc.exp(-y * y)
    return sc.reduce_sum(y)


@sc.function
def grad_f(x, w):
    with sc.GradientTape() as tape:
        tape.watch(x)
        tape.watch(w)
        loss = f(x, w)
    return tape.gradient(loss, [x, w])


@sc.function
def second(x):
    with sc.GradientTape() as t1:
        t1.watch(x)
        with sc.GradientTape() as t2:
            t2.watch(x)
            y = x * x * x
        dy = t2.gradient(y, x)
    return dy, t1.gradient(dy, x)


x = sc.constant([0.5, -1.25, 2.0])
for w in (sc.constant(0.75), sc.constant(-0.75)):
    print(grad_f(x, w))
    with sc.GradientTape() as tape:
        tape.watch([x, w])
        loss = f(x, w)
    print(tape.gradient(loss, {'x': x, 'w': w, 'unused': sc.constant(1.0)}))
print(second(sc.constant(3.0)))

# id: staged-gradients-004
# construct: gradients
# modes: original,unstaged,staged,staged-gpu
# expect: agree
# about: gradients through staged loops (while_v2's accumulators): a for over sc.range with a run-time bound carrying state through tanh and matmul, a while whose body holds a staged if, and the RNN of staged/seeds/009 with its time loop staged (Variables captured in the body; a loop that may run 0 times needs unconnected_gradients='zero', the eager tape's None being a run-time fact); the gradient taken eagerly of a staged call holding a loop, and a bound of 0

import stagecheck as sc

W = sc.constant([[0.5, -0.25], [0.75, 0.1]])


@sc.function
def f(x, n):
    with sc.GradientTape() as tape:
        tape.watch(x)
        y = x
        s = sc.constant(0.0)
        for i in sc.range(n):
            y = sc.tanh(sc.matmul(y, W) + x * 0.5)
            s = s + sc.reduce_sum(y * y)
        loss = s + sc.reduce_sum(y)
    return tape.gradient(loss, x)


@sc.function
def g(x, n):
    with sc.GradientTape() as tape:
        tape.watch(x)
        y = x
        i = sc.constant(0)
        while i < n:
            if sc.reduce_sum(y) > 0.0:
                y = y * 0.9 + sc.sigmoid(x)
            else:
                y = y * 1.1 - x * x
            i = i + 1
        loss = sc.reduce_sum(y * y)
    return tape.gradient(loss, x, unconnected_gradients='zero')


x = sc.constant([[0.3, -0.6]])
for n in (3, 1, 0):
    print(f(x, sc.constant(n)))
    print(g(x, sc.constant(n)))

T, B, IN, H = 4, 2, 3, 3
Wx = sc.Variable(sc.reshape(sc.cast(sc.range(IN * H) % 5, sc.float32) * 0.2 - 0.4, (IN, H)))
U = sc.Variable(sc.reshape(sc.cast(sc.range(H * H) % 3, sc.float32) * 0.25 - 0.25, (H, H)))
b = sc.Variable([0.1, -0.1, 0.05])


@sc.function
def rnn_loss(inputs, n):
    state = sc.zeros((B, H))
    for t in sc.range(n):
        state = sc.tanh(sc.matmul(inputs[t], Wx) + sc.matmul(state, U) + b)
    return sc.reduce_mean(state * state)


@sc.function
def step(inputs, n):
    with sc.GradientTape() as tape:
        loss = rnn_loss(inputs, n)
    gW, gU, gb = tape.gradient(loss, [Wx, U, b], unconnected_gradients='zero')
    Wx.assign_sub(0.5 * gW)
    U.assign_sub(0.5 * gU)
    b.assign_sub(0.5 * gb)
    return loss, gW


inputs = sc.reshape(sc.cast(sc.range(T * B * IN) % 7, sc.float32) * 0.3 - 0.9, (T, B, IN))
for k in range(3):
    print(step(inputs, sc.constant(T)))
print(step(inputs, sc.constant(0)))
with sc.GradientTape() as tape:
    loss = rnn_loss(inputs, sc.constant(2))
print(tape.gradient(loss, [Wx, b]))

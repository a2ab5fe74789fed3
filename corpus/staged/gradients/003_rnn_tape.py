# id: staged-gradients-003
# construct: gradients
# modes: original,unstaged,staged,staged-gpu
# expect: agree
# about: the RNN of staged/seeds/009 with a loss and its gradients with respect to the cell's weights from the tape (the time loop over a Python range, unrolled at trace time), and a staged step updating them

import stagecheck as sc

T, BATCH, IN, HIDDEN = 4, 3, 4, 5


def weights(rows, cols, k):
    return sc.reshape(sc.cast(sc.range(rows * cols) % k, sc.float32) * 0.125 - 0.25, (rows, cols))


W = sc.Variable(weights(IN, HIDDEN, 7))
U = sc.Variable(weights(HIDDEN, HIDDEN, 5))
b = sc.Variable([0.1, -0.1, 0.0, 0.2, -0.2])


def rnn_cell(x, state):
    return sc.tanh(sc.matmul(x, W) + sc.matmul(state, U) + b)


@sc.function
def loss_and_grads(inputs, target):
    with sc.GradientTape() as tape:
        state = sc.zeros((BATCH, HIDDEN))
        for t in range(T):
            state = rnn_cell(inputs[:, t, :], state)
        loss = sc.reduce_mean((state - target) ** 2.0)
    return loss, tape.gradient(loss, [W, U, b])


x = sc.reshape(sc.cast(sc.range(BATCH * T * IN) % 5, sc.float32) * 0.5 - 1.0, (BATCH, T, IN))
target = sc.reshape(sc.cast(sc.range(BATCH * HIDDEN) % 3, sc.float32) * 0.5 - 0.5, (BATCH, HIDDEN))
loss, grads = loss_and_grads(x, target)
print(loss)
for g in grads:
    print(g)
for step in range(5):
    loss, (gW, gU, gb) = loss_and_grads(x, target)
    W.assign_sub(0.5 * gW)
    U.assign_sub(0.5 * gU)
    b.assign_sub(0.5 * gb)
print(loss)

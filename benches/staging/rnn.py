# RNN loop (AutoGraph §8): T steps of h = tanh(x[t] @ W + h @ U + b).
import stagecheck as sc

T, BATCH, IN, HIDDEN = 64, 8, 16, 16


def weights(rows, cols, k):
    return sc.reshape(sc.cast(sc.range(rows * cols) % k, sc.float32) * 0.0625 - 0.1875, (rows, cols))


@sc.function
def rnn(xs, h, W, U, b):
    for t in sc.range(sc.constant(T)):
        h = sc.tanh(sc.matmul(xs[t], W) + sc.matmul(h, U) + b)
    return h


xs = sc.reshape(sc.cast(sc.range(T * BATCH * IN) % 9, sc.float32) * 0.25 - 1.0, (T, BATCH, IN))
W, U = weights(IN, HIDDEN, 7), weights(HIDDEN, HIDDEN, 5)
b = sc.zeros((HIDDEN,))
for _ in range(__CALLS__):
    h = rnn(xs, sc.zeros((BATCH, HIDDEN)), W, U, b)
print(float(sc.reduce_sum(h)))

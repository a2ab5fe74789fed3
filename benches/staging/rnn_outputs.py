# RNN with its outputs collected (AutoGraph §5's dynamic_rnn, seed 001): T steps of
# h = tanh(x[t] @ W + h @ U + b), each h appended to a list in the staged loop
# (list ops of the graph), stacked after it.
import stagecheck as sc

T, BATCH, IN, HIDDEN = 64, 8, 16, 16


def weights(rows, cols, k):
    return sc.reshape(sc.cast(sc.range(rows * cols) % k, sc.float32) * 0.0625 - 0.1875, (rows, cols))


@sc.function
def rnn_outputs(xs, h, W, U, b):
    outputs = []
    for t in sc.range(sc.constant(T)):
        h = sc.tanh(sc.matmul(xs[t], W) + sc.matmul(h, U) + b)
        outputs.append(h)
    return sc.stack(outputs)


xs = sc.reshape(sc.cast(sc.range(T * BATCH * IN) % 9, sc.float32) * 0.25 - 1.0, (T, BATCH, IN))
W, U = weights(IN, HIDDEN, 7), weights(HIDDEN, HIDDEN, 5)
b = sc.zeros((HIDDEN,))
for _ in range(__CALLS__):
    hs = rnn_outputs(xs, sc.zeros((BATCH, HIDDEN)), W, U, b)
print(hs.shape, float(sc.reduce_sum(hs)))

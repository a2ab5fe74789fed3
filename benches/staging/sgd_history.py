# SGD with a Variable and a list: sgd_variable's steps, each step's
# mean squared error appended to a list in the staged loop (list ops of the
# graph) and stacked after it: the loss history a training loop returns.
import stagecheck as sc

N, D, STEPS = 64, 8, 100
X = sc.reshape(sc.cast(sc.range(N * D) % 13, sc.float32) * 0.125 - 0.75, (N, D))
TRUE_W = sc.reshape(sc.cast(sc.range(D), sc.float32) * 0.5 - 1.0, (D, 1))
Y = sc.matmul(X, TRUE_W) + 0.25
w = sc.Variable(sc.zeros((D, 1)))


@sc.function
def train():
    losses = []
    i = sc.constant(0)
    while i < STEPS:
        err = sc.matmul(X, w) - Y
        losses.append(sc.reduce_mean(err * err))
        w.assign_sub(0.05 * (sc.matmul(sc.transpose(X), err) * (2.0 / N)))
        i = i + 1
    return sc.stack(losses)


for _ in range(__CALLS__):
    w.assign(sc.zeros((D, 1)))
    history = train()
print(float(sc.reduce_sum(w)), float(history[0]), float(history[STEPS - 1]))

# In-graph SGD (AutoGraph §8): a linear layer fitted by 100 gradient steps.
import stagecheck as sc

N, D, STEPS = 64, 8, 100
X = sc.reshape(sc.cast(sc.range(N * D) % 13, sc.float32) * 0.125 - 0.75, (N, D))
TRUE_W = sc.reshape(sc.cast(sc.range(D), sc.float32) * 0.5 - 1.0, (D, 1))
Y = sc.matmul(X, TRUE_W) + 0.25


@sc.function
def train(w, b):
    i = sc.constant(0)
    while i < STEPS:
        err = sc.matmul(X, w) + b - Y
        w = w - 0.05 * (sc.matmul(sc.transpose(X), err) * (2.0 / N))
        b = b - 0.05 * (sc.reduce_mean(err) * 2.0)
        i = i + 1
    return w, b


for _ in range(__CALLS__):
    w, b = train(sc.zeros((D, 1)), sc.constant(0.0))
print(float(sc.reduce_sum(w)), float(b))

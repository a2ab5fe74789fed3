# SGD with its parameters in sc.Variables: the sgd workload, each step
# reading the variables and assigning them (host nodes of the graph) instead of
# carrying them as loop variables.
import stagecheck as sc

N, D, STEPS = 64, 8, 100
X = sc.reshape(sc.cast(sc.range(N * D) % 13, sc.float32) * 0.125 - 0.75, (N, D))
TRUE_W = sc.reshape(sc.cast(sc.range(D), sc.float32) * 0.5 - 1.0, (D, 1))
Y = sc.matmul(X, TRUE_W) + 0.25
w = sc.Variable(sc.zeros((D, 1)))
b = sc.Variable(0.0)


@sc.function
def train():
    i = sc.constant(0)
    while i < STEPS:
        err = sc.matmul(X, w) + b - Y
        w.assign_sub(0.05 * (sc.matmul(sc.transpose(X), err) * (2.0 / N)))
        b.assign_sub(0.05 * (sc.reduce_mean(err) * 2.0))
        i = i + 1
    return i


for _ in range(__CALLS__):
    w.assign(sc.zeros((D, 1)))
    b.assign(0.0)
    train()
print(float(sc.reduce_sum(w)), float(b))

# SGD with a tape: the sgd_variable workload with its gradients from
# sc.GradientTape inside the staged training loop instead of derived by hand
# (its NumPy port keeps the hand gradient): each step records the loss, the
# tape's backward pass becomes graph nodes of the loop body.
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
        with sc.GradientTape() as tape:
            err = sc.matmul(X, w) + b - Y
            loss = sc.reduce_mean(err * err)
        gw, gb = tape.gradient(loss, [w, b])
        w.assign_sub(0.05 * gw)
        b.assign_sub(0.05 * gb)
        i = i + 1
    return i


for _ in range(__CALLS__):
    w.assign(sc.zeros((D, 1)))
    b.assign(0.0)
    train()
print(float(sc.reduce_sum(w)), float(b))

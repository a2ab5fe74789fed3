# id: staged-seeds-007
# construct: seeds
# modes: original,unstaged,staged
# expect: agree
# about: AutoGraph §8: an in-graph SGD training loop for a linear layer on synthetic data (fixed data, no randomness)

import stagecheck as sc

X = sc.reshape(sc.range(0.0, 2.0, 0.125), (16, 1))
Y = X * 3.0 + 0.5

@sc.function
def train(w, b, steps):
    i = sc.constant(0)
    while i < steps:
        pred = sc.matmul(X, w) + b
        err = pred - Y
        gw = sc.matmul(sc.transpose(X), err) * (2.0 / 16.0)
        gb = sc.reduce_mean(err) * 2.0
        w = w - 0.1 * gw
        b = b - 0.1 * gb
        i = i + 1
    loss = sc.reduce_mean((sc.matmul(X, w) + b - Y) ** 2.0)
    return w, b, loss

w, b, loss = train(sc.zeros((1, 1)), sc.constant(0.0), sc.constant(200))
print(w, b, loss)

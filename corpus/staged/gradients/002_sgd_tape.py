# id: staged-gradients-002
# construct: gradients
# modes: original,unstaged,staged,staged-gpu
# expect: agree
# about: AutoGraph §8's SGD (staged/seeds/007) with its gradients from the tape instead of by hand: sc.Variables watched automatically, a staged training step, the update by assign_sub

import stagecheck as sc

X = sc.reshape(sc.range(0.0, 2.0, 0.125), (16, 1))
Y = X * 3.0 + 0.5
w = sc.Variable(sc.zeros((1, 1)))
b = sc.Variable(0.0)


@sc.function
def train_step(lr):
    with sc.GradientTape() as tape:
        loss = sc.reduce_mean((sc.matmul(X, w) + b - Y) ** 2.0)
    gw, gb = tape.gradient(loss, [w, b])
    w.assign_sub(lr * gw)
    b.assign_sub(lr * gb)
    return loss


for step in range(60):
    loss = train_step(sc.constant(0.1))
    if step % 20 == 0:
        print(step, loss)
print(w.numpy(), b.numpy(), loss)

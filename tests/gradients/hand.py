import stagecheck as sc

# Hand-derived: y = sum(tanh(x * w) ** 2) + sum(exp(x) / 2), so
# dy/dx = 2 t (1 - t^2) w + exp(x) / 2 and dy/dw = sum(2 t (1 - t^2) x), t = tanh(x w).
x = sc.constant([0.5, -1.0, 2.0], dtype=sc.float64)
w = sc.Variable(sc.constant(0.75, dtype=sc.float64))
with sc.GradientTape() as tape:
    tape.watch(x)
    t = sc.tanh(x * w)
    y = sc.reduce_sum(t ** 2.0) + sc.reduce_sum(sc.exp(x) / 2.0)
gx, gw = tape.gradient(y, [x, w])
tt = sc.tanh(x * 0.75)
hx = 2.0 * tt * (1.0 - tt * tt) * 0.75 + sc.exp(x) / 2.0
hw = sc.reduce_sum(2.0 * tt * (1.0 - tt * tt) * x)
print('dx', float(sc.reduce_max(sc.abs(gx - hx))) < 1e-12)
print('dw', float(sc.abs(gw - hw)) < 1e-12)
print(gx.numpy(), float(gw))


@sc.function
def loss(x, w):
    h = sc.tanh(x * w)
    if sc.reduce_sum(h) > 0.0:
        out = sc.reduce_sum(h * h)
    else:
        out = sc.reduce_sum(sc.sigmoid(h)) * 2.0
    return out


@sc.function
def grads(x):
    with sc.GradientTape() as tape:
        tape.watch(x)
        loss_ = loss(x, w) + sc.reduce_mean(sc.maximum(x, 0.0))
    return tape.gradient(loss_, [x, w])


for v in (x, -x):
    g = grads(v)
    print(g[0].numpy(), g[1].numpy())
with sc.GradientTape() as tape:
    tape.watch(x)
    loss_ = loss(x, w)
print([g.numpy() for g in tape.gradient(loss_, [x, w])])
print(tape.__class__.__name__)

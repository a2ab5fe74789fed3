# id: staged-gradients-006
# construct: gradients
# modes: original,unstaged,staged,staged-gpu
# expect: agree
# about: a staged loop whose initial value is the watched source itself (y = x) and whose body reads x too: the loop's gradient reaches x twice, as the captured value and as the initial value, and must add both (the second was once dropped: the captured sum replaced the list); bounds 0 to 7

import stagecheck as sc


@sc.function
def f(x, n):
    with sc.GradientTape() as tape:
        tape.watch(x)
        y = x
        for i in sc.range(n):
            y = sc.tanh(y * x + 0.37) * 1.3 + x * 0.71
        loss = sc.reduce_sum(y * x)
    return tape.gradient(loss, x, unconnected_gradients='zero')


for v in ([0.31, -0.77, 1.9], [2.5, -3.1, 0.01], [-1.432, 0.577, 1.234]):
    for n in (0, 1, 2, 7):
        print(f(sc.constant(v), sc.constant(n)).numpy())

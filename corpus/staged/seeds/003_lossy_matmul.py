# id: staged-seeds-003
# construct: seeds
# modes: original,unstaged,staged
# expect: agree
# about: TF Eager listing 6: a Python flag (training) specialises the trace: two graphs; dropout replaced by a fixed mask (no randomness)

import stagecheck as sc

@sc.function
def lossy_matmul(W, x, training=True):
    outputs = sc.matmul(W, x)
    if training:
        outputs = outputs * sc.constant([[0.0], [1.25], [1.25]])
    return outputs

W = sc.reshape(sc.range(15, dtype=sc.float32), (3, 5)) / 7.0
x = sc.reshape(sc.range(5, dtype=sc.float32), (5, 1))
print(lossy_matmul(W, x, training=True))
print(lossy_matmul(W, x, training=False))
print(lossy_matmul(W, x))

# A chain of four 1024 x 1024 float32 matmuls in a staged loop: the
# kernel alone, 8.6 GFLOP a call.
import stagecheck as sc

N, STEPS = 1024, 4


@sc.function
def chain(x, w):
    for _ in sc.range(sc.constant(STEPS)):
        x = sc.matmul(x, w)
    return x


x = sc.reshape(sc.cast(sc.range(N * N) % 7, sc.float32) * 0.125 - 0.375, (N, N))
w = sc.reshape(sc.cast(sc.range(N * N) % 5, sc.float32) * (1.0 / 1024) - (2.0 / 1024), (N, N))
for _ in range(__CALLS__):
    y = chain(x, w)
print(float(sc.reduce_sum(y)))

import numpy as np
import time
import sys
N, STEPS = 1024, 4
def chain(x, w):
    for _ in range(STEPS):
        x = x @ w
    return x
x = ((np.arange(N * N) % 7).astype(np.float32) * np.float32(0.125) - np.float32(0.375)).reshape(N, N)
w = ((np.arange(N * N) % 5).astype(np.float32) * np.float32(1.0 / 1024) - np.float32(2.0 / 1024)).reshape(N, N)
calls = int(sys.argv[1])
start = time.perf_counter()
for _ in range(calls):
    y = chain(x, w)
print((time.perf_counter() - start) / calls, float(y.sum()))

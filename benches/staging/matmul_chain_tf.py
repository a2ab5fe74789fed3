import os
import sys
import time
os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")
import numpy as np
import tensorflow as tf
N, STEPS = 1024, 4
@tf.function
def chain(x, w):
    for _ in tf.range(STEPS):
        x = x @ w
    return x
x = tf.constant(((np.arange(N * N) % 7).astype(np.float32) * np.float32(0.125) - np.float32(0.375)).reshape(N, N))
w = tf.constant(((np.arange(N * N) % 5).astype(np.float32) * np.float32(1.0 / 1024) - np.float32(2.0 / 1024)).reshape(N, N))
chain(x, w)  # traced once, outside the timing
calls = int(sys.argv[1])
start = time.perf_counter()
for _ in range(calls):
    y = chain(x, w)
print((time.perf_counter() - start) / calls, float(tf.reduce_sum(y)))

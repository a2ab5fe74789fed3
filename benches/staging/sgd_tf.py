import os
import sys
import time
os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")
import numpy as np
import tensorflow as tf
N, D, STEPS = 64, 8, 100
X = tf.constant(((np.arange(N * D) % 13).astype(np.float32) * np.float32(0.125) - np.float32(0.75)).reshape(N, D))
TRUE_W = tf.constant((np.arange(D).astype(np.float32) * np.float32(0.5) - np.float32(1.0)).reshape(D, 1))
Y = X @ TRUE_W + 0.25
@tf.function
def train(w, b):
    i = tf.constant(0)
    while i < STEPS:
        err = X @ w + b - Y
        w = w - 0.05 * (tf.matmul(X, err, transpose_a=True) * (2.0 / N))
        b = b - 0.05 * (tf.reduce_mean(err) * 2.0)
        i = i + 1
    return w, b
w0, b0 = tf.zeros((D, 1)), tf.constant(0.0)
train(w0, b0)  # traced once, outside the timing
calls = int(sys.argv[1])
start = time.perf_counter()
for _ in range(calls):
    w, b = train(w0, b0)
print((time.perf_counter() - start) / calls, float(tf.reduce_sum(w)), float(b))

import numpy as np
import time
import sys
N, D, STEPS = 64, 8, 100
X = ((np.arange(N * D) % 13).astype(np.float32) * np.float32(0.125) - np.float32(0.75)).reshape(N, D)
TRUE_W = (np.arange(D).astype(np.float32) * np.float32(0.5) - np.float32(1.0)).reshape(D, 1)
Y = X @ TRUE_W + np.float32(0.25)
state = {}
def train():
    i = 0
    while i < STEPS:
        err = X @ state['w'] + state['b'] - Y
        state['w'] = state['w'] - np.float32(0.05) * ((X.T @ err) * np.float32(2.0 / N))
        state['b'] = state['b'] - np.float32(0.05) * (err.mean() * np.float32(2.0))
        i = i + 1
    return i
calls = int(sys.argv[1])
start = time.perf_counter()
for _ in range(calls):
    state['w'], state['b'] = np.zeros((D, 1), np.float32), np.float32(0.0)
    train()
print((time.perf_counter() - start) / calls, float(state['w'].sum()), float(state['b']))

import numpy as np
import time
import sys
V, STEPS = 64, 200
TABLE = (((np.arange(V * V) * 37) % 101).astype(np.float32) * np.float32(0.01)).reshape(V, V)
def decode(tok):
    total = np.float32(0.0)
    steps = 0
    while steps < STEPS:
        row = TABLE[tok]
        tok = np.int32(np.argmax(row))
        total = total + row.max()
        steps = steps + 1
    return tok, total
calls = int(sys.argv[1])
start = time.perf_counter()
for _ in range(calls):
    tok, total = decode(np.int32(3))
print((time.perf_counter() - start) / calls, int(tok), float(total))

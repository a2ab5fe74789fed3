# Beam-search-like decoding: 200 steps of gather, argmax and running totals.
import stagecheck as sc

V, STEPS = 64, 200
TABLE = sc.reshape(sc.cast((sc.range(V * V) * 37) % 101, sc.float32) * 0.01, (V, V))


@sc.function
def decode(tok):
    total = sc.constant(0.0)
    steps = sc.constant(0)
    while steps < STEPS:
        row = TABLE[tok]
        tok = sc.cast(sc.argmax(row, 0), sc.int32)
        total = total + sc.reduce_max(row)
        steps = steps + 1
    return tok, total


for _ in range(__CALLS__):
    tok, total = decode(sc.constant(3))
print(int(tok), float(total))

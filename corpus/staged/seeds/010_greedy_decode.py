# id: staged-seeds-010
# construct: seeds
# modes: original,unstaged,staged
# expect: agree
# about: a beam-search-like decoding loop: a while whose test is a staged `and` (step budget, end token), a gather by the current token, argmax and running totals

import stagecheck as sc

V = 7
TABLE = sc.reshape(sc.cast((sc.range(V * V) * 5) % 11, sc.float32) * 0.5, (V, V))


@sc.function
def decode(start, max_steps, eos):
    tok = start
    total = sc.constant(0.0)
    steps = sc.constant(0)
    while steps < max_steps and tok != eos:
        row = TABLE[tok]
        tok = sc.cast(sc.argmax(row, 0), sc.int32)
        total = total + sc.reduce_max(row)
        steps = steps + 1
    return tok, total, steps


for s in range(V):
    print(decode(sc.constant(s), sc.constant(20), sc.constant(2)))

# id: staged-while-009
# construct: while
# modes: original,unstaged,staged
# expect: agree
# about: float32 accumulation in a staged loop is bit-exact with eager (same kernels, same order)

import stagecheck as sc

@sc.function
def harmonic(n):
    s = sc.constant(0.0)
    k = sc.constant(1.0)
    while k <= n:
        s = s + 1.0 / k
        k = k + 1.0
    return s

print(harmonic(sc.constant(1000.0)), harmonic(sc.constant(3.0)))

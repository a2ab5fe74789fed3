# id: staged-while-001
# construct: while
# modes: original,unstaged,staged
# expect: agree
# about: a staged while carrying two tensors

import stagecheck as sc

@sc.function
def fib(n):
    a = sc.constant(0)
    b = sc.constant(1)
    i = sc.constant(0)
    while i < n:
        a, b = b, a + b
        i = i + 1
    return a

print([int(fib(sc.constant(k))) for k in range(10)])

# id: conv-calls-006
# construct: calls
# modes: original,unstaged
# expect: agree
# about: bound methods stored and called later; callable objects with __call__; functions as arguments

class Counter:
    def __init__(self):
        self.n = 0

    def inc(self, by=1):
        self.n += by
        return self.n

    def __call__(self, x):
        return x + self.n


def apply_all(fs, x):
    return [fn(x) for fn in fs]


def f():
    c = Counter()
    inc = c.inc
    for i in range(3):
        inc(i)
    return apply_all([c, abs, str, c.inc], -2), c.n


print(f())

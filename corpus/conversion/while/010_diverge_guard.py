# id: conv-while-010
# construct: while
# modes: original,unstaged
# expect: agree
# about: a while loop whose test mutates state through a method; bounded by a counter (isqrt by Newton)

class Counter:
    def __init__(self):
        self.n = 0

    def tick(self):
        self.n += 1
        return self.n < 100


def isqrt(x, c):
    if x < 2:
        return x
    r = x
    while c.tick() and r * r > x:
        r = (r + x // r) // 2
    return r


c = Counter()
res = [isqrt(v, c) for v in (0, 1, 2, 15, 16, 17, 1000, 99999)]
print(res, c.n)

# id: conv-ternary-005
# construct: ternary
# modes: original,unstaged
# expect: agree
# about: the test of a conditional expression uses __bool__ exactly once

class Noisy:
    def __init__(self, v):
        self.v = v
        self.calls = 0

    def __bool__(self):
        self.calls += 1
        print('bool', self.v)
        return bool(self.v)


def f(n):
    r = 'a' if n else 'b'
    return r, n.calls


print(f(Noisy(3)))
print(f(Noisy(0)))

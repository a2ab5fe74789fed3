# id: conv-logical-009
# construct: logical
# modes: original,unstaged
# expect: agree
# about: rich comparisons that return non-bool values, used in chains and in and/or

class V:
    def __init__(self, x):
        self.x = x

    def __lt__(self, other):
        print('lt', self.x, other.x)
        return self.x < other.x and ('yes', self.x)

    def __eq__(self, other):
        print('eq', self.x, other.x)
        return self.x == other.x


def f():
    a, b, c = V(1), V(2), V(3)
    r1 = a < b < c
    r2 = c < b < a
    r3 = (a == a) or (b == c)
    r4 = a < b and b == b
    return r1, r2, r3, r4


print(f())

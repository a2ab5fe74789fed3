# id: conv-logical-012
# construct: logical
# modes: original,unstaged
# expect: agree
# about: truth tests of and/or operands happen once each in test contexts (if, while, ternary, assert, not, comprehension if) and values in value contexts

class B:
    def __init__(self, name, v):
        self.name, self.v = name, v

    def __bool__(self):
        print('bool', self.name)
        return self.v


def contexts():
    f, t = B('f', False), B('t', True)
    if f and t:
        print('no')
    if t or f:
        print('if-or')
    if not (f and t):
        print('not-and')
    n = 0
    while f or (n < 1 and t):
        n += 1
    x = 'y' if f or t else 'n'
    assert t and (f or t)
    ys = [i for i in range(2) if f or t]
    v = (f or t) and f
    print(x, ys, v.name, n)


contexts()

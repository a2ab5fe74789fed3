# id: conv-augassign_del-001
# construct: augassign_del
# modes: original,unstaged
# expect: agree
# about: augmented assignment on names, attributes and subscripts; each target expression is evaluated once

class Obj:
    def __init__(self):
        self.v = 1


def t(name, v):
    print('eval', name)
    return v


def f():
    n = 5
    n += 3
    n *= 2
    n //= 3
    n **= 2
    n %= 7
    o = Obj()
    t('obj', o).v += 10
    xs = [1, 2, 3]
    t('list', xs)[t('idx', 1)] -= 100
    s = 'ab'
    s *= 3
    return n, o.v, xs, s


print(f())

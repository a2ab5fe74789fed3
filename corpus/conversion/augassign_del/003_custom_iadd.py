# id: conv-augassign_del-003
# construct: augassign_del
# modes: original,unstaged
# expect: agree
# about: a class with __iadd__ and __add__ that log; augmented assignment prefers __iadd__

class Acc:
    def __init__(self, v):
        self.v = v

    def __add__(self, o):
        print('add', self.v, o)
        return Acc(self.v + o)

    def __iadd__(self, o):
        print('iadd', self.v, o)
        self.v += o
        return self


class NoIadd:
    def __init__(self, v):
        self.v = v

    def __add__(self, o):
        print('plain add', self.v, o)
        return NoIadd(self.v + o)


def f():
    a = Acc(1)
    b = a
    for i in range(3):
        a += i
    c = NoIadd(1)
    d = c
    c += 5
    return a.v, b is a, c.v, d.v, d is c


print(f())

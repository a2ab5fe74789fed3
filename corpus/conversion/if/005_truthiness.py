# id: conv-if-005
# construct: if
# modes: original,unstaged
# expect: agree
# about: if tests on non-bool values: empty containers, zero, None, objects with __bool__ and __len__

class Flag:
    def __init__(self, v):
        self.v = v

    def __bool__(self):
        print('bool called', self.v)
        return self.v


class Sized:
    def __init__(self, n):
        self.n = n

    def __len__(self):
        print('len called', self.n)
        return self.n


def truth(x):
    if x:
        return 'T'
    else:
        return 'F'


items = [0, 1, '', 'a', [], [0], {}, None, 0.0, Flag(True), Flag(False), Sized(0), Sized(2)]
print(''.join(truth(i) for i in items))

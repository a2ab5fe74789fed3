# id: conv-logical-010
# construct: logical
# modes: original,unstaged
# expect: agree
# about: not calls __bool__ or __len__; double negation normalises to bool

class L:
    def __init__(self, n):
        self.n = n

    def __len__(self):
        print('len', self.n)
        return self.n


def f(objs):
    return [not o for o in objs], [not not o for o in objs]


print(f([L(0), L(3), 0, 'a', None]))

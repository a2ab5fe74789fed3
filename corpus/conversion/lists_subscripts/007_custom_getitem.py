# id: conv-lists_subscripts-007
# construct: lists_subscripts
# modes: original,unstaged
# expect: agree
# about: a class with __getitem__/__setitem__/__delitem__ that logs; used in loops and augmented assignment

class Log:
    def __init__(self):
        self.d = {}

    def __getitem__(self, k):
        print('get', k)
        return self.d.get(k, 0)

    def __setitem__(self, k, v):
        print('set', k, v)
        self.d[k] = v

    def __delitem__(self, k):
        print('del', k)
        del self.d[k]


def f():
    m = Log()
    for w in 'abca':
        m[w] += 1
    del m['b']
    return sorted(m.d.items())


print(f())

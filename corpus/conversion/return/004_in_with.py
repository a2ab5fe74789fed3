# id: conv-return-004
# construct: return
# modes: original,unstaged
# expect: agree
# about: return inside a with block: __exit__ runs after the return expression is evaluated

class CM:
    def __init__(self, name):
        self.name = name

    def __enter__(self):
        print('enter', self.name)
        return self

    def __exit__(self, et, ev, tb):
        print('exit', self.name, et.__name__ if et else None)
        return False


def value(x):
    print('computing', x)
    return x * 2


def f(n):
    with CM('outer') as o:
        for i in range(n):
            with CM('inner%d' % i):
                if i == 1:
                    return value(i), o.name
    return 'end'


print(f(3))
print(f(1))

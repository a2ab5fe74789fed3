# id: conv-generators-004
# construct: generators
# modes: original,unstaged
# expect: agree
# about: generator expressions are lazy: the first iterable is evaluated at creation, conditions run during consumption

def src(name, xs):
    print('src', name)
    return xs


def f():
    g = (x * y for x in src('outer', [1, 2, 3]) if x != 2 for y in src('inner', [10, 20]))
    print('generator created')
    first = next(g)
    print('first', first)
    rest = list(g)
    return first, rest, sum(v for v in range(5) if v % 2)


print(f())

# id: conv-calls-002
# construct: calls
# modes: original,unstaged
# expect: agree
# about: *args and **kwargs in definitions and calls, keyword-only and default parameters

def show(a, b=2, *rest, c, d=4, **kw):
    return (a, b, rest, c, d, sorted(kw.items()))


def f():
    print(show(1, c=3))
    print(show(1, 5, 6, 7, c=8, z=9, y=10))
    args = (1, 2, 3)
    kwargs = {'c': 'C', 'e': 'E'}
    print(show(*args, **kwargs))
    print(show(0, *[1], *(2, 3), c=0, **{'d': 1}, **{'f': 2}))


f()

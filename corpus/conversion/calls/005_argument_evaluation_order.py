# id: conv-calls-005
# construct: calls
# modes: original,unstaged
# expect: agree
# about: arguments are evaluated left to right, positional before keyword, before the call happens

def t(x):
    print('arg', x)
    return x


def callee(*a, **k):
    print('callee runs')
    return a, sorted(k.items())


def get_callee():
    print('callee expression')
    return callee


def f():
    return get_callee()(t(1), t(2), *[t(3)], k=t(4), **{'m': t(5)})


print(f())

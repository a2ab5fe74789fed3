# id: conv-calls-009
# construct: calls
# modes: original,unstaged
# expect: agree
# about: a mutable default argument is shared across calls; defaults are evaluated once at def time

def make_default():
    print('default evaluated')
    return []


def add(x, into=make_default()):
    into.append(x)
    return into


def f():
    a = add(1)
    b = add(2)
    c = add(3, [])
    return a, b, c, a is b


print(f())

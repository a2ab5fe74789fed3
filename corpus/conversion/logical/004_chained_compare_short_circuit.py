# id: conv-logical-004
# construct: logical
# modes: original,unstaged
# expect: agree
# about: a false first comparison in a chain skips the remaining operands entirely

def v(name, x):
    print('eval', name)
    return x


def f():
    r = v('a', 5) < v('b', 3) < v('c', 10)
    s = v('d', 1) < v('e', 2) < v('f', 3) < v('g', 0) < v('h', 9)
    return r, s


print(f())

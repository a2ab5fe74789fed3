# id: conv-logical-002
# construct: logical
# modes: original,unstaged
# expect: agree
# about: not binds tighter than and/or; mixed chains with printing operands

def t(name, v):
    print(name, end=' ')
    return v


def f(a, b, c):
    r = not t('a', a) or t('b', b) and not t('c', c)
    print('->', r)
    return r


def main():
    for args in ((0, 0, 0), (1, 0, 1), (1, 1, 0), (1, 1, 1)):
        f(*args)


main()

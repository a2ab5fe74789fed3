# id: conv-logical-007
# construct: logical
# modes: original,unstaged
# expect: agree
# about: an operand whose __bool__ raises inside and/or; later operands are not evaluated

class Bad:
    def __repr__(self):
        return 'Bad()'

    def __bool__(self):
        raise TypeError('no bool for Bad')


def t(x):
    print('t', x)
    return x


def f(a):
    return t(a) and t('second')


print(f(0))


def main_1():
    try:
        f(Bad())
    except TypeError as e:
        print(type(e).__name__, e)


main_1()


def main_2():
    try:
        print(t(0) or Bad() or t('never'))
    except TypeError as e:
        print(type(e).__name__, e)


main_2()

print(Bad() if 0 else 'ok')

# id: conv-if-007
# construct: if
# modes: original,unstaged
# expect: agree
# about: if test whose __bool__ raises; the exception propagates, neither branch runs

class Bad:
    def __bool__(self):
        raise ValueError('no truth value')


def f(x):
    out = 'unset'
    if x:
        out = 'then'
        print('then')
    else:
        out = 'else'
        print('else')
    return out


def main():
    try:
        f(Bad())
    except ValueError as e:
        print(type(e).__name__, e)


main()

print(f(1), f(0))

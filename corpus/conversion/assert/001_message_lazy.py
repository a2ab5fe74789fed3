# id: conv-assert-001
# construct: assert
# modes: original,unstaged
# expect: agree
# about: the assert message (a printing call) is evaluated only when the assertion fails

def msg(x):
    print('building message for', x)
    return 'bad value %r' % (x,)


def check(x):
    assert x > 0, msg(x)
    return x * 2


print(check(3))


def main():
    try:
        check(-1)
    except AssertionError as e:
        print(type(e).__name__, e)


main()

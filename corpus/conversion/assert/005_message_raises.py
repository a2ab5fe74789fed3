# id: conv-assert-005
# construct: assert
# modes: original,unstaged
# expect: agree
# about: the assert message expression itself raises; that exception replaces the AssertionError

def bad_msg():
    print('message raising')
    return {}['missing']


def f(x):
    assert x, bad_msg()
    return 'ok'


print(f(1))


def main_1():
    try:
        f(0)
    except KeyError as e:
        print('KeyError instead of AssertionError:', e)


main_1()


def main_2():
    try:
        assert_ = f(None)
    except AssertionError as e:
        print('not reached', e)
    except LookupError as e:
        print(type(e).__name__, e)


main_2()

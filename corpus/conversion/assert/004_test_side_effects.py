# id: conv-assert-004
# construct: assert
# modes: original,unstaged
# expect: agree
# about: the assert test itself has side effects (list mutation, printing calls) that happen exactly once

log = []


def note(x):
    log.append(x)
    print('note', x)
    return x


def f(xs):
    assert note(len(xs)) and note(xs[0]) < 10, note('msg')
    return 'passed'


print(f([1, 2]))


def main_1():
    try:
        f([11])
    except AssertionError as e:
        print(type(e).__name__, e)


main_1()


def main_2():
    try:
        f([])
    except AssertionError as e:
        print(type(e).__name__, e)


main_2()

print(log)

# id: conv-if-003
# construct: if
# modes: original,unstaged
# expect: agree
# about: each elif test is a call that prints; tests after the taken branch must not run

calls = []


def t(name, value):
    print('test', name)
    calls.append(name)
    return value


def pick(x):
    if t('a', x == 1):
        r = 'one'
    elif t('b', x == 2):
        r = 'two'
    elif t('c', x == 3):
        r = 'three'
    else:
        r = 'other'
    return r


def main():
    for x in (1, 2, 3, 4):
        print(pick(x))


main()

print(calls)

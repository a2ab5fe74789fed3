# id: conv-while-008
# construct: while
# modes: original,unstaged
# expect: agree
# about: the while test raises on the third evaluation; the exception propagates out of the loop

def check(x):
    print('check', x)
    if x == 2:
        raise KeyError('stop at ' + str(x))
    return True


def loop():
    i = 0
    while check(i):
        print('body', i)
        i += 1
    return i


def main():
    try:
        loop()
    except KeyError as e:
        print(type(e).__name__, e)


main()

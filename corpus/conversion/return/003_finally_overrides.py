# id: conv-return-003
# construct: return
# modes: original,unstaged,staged
# expect: agree
# about: a return in finally overrides the try's return value and swallows an exception

def a():
    try:
        return 'try'
    finally:
        print('finally of a')


def b():
    for i in range(3):
        try:
            return 'try', i
        finally:
            if i == 0:
                return 'finally', i


def c():
    try:
        raise ValueError('lost')
    finally:
        return 'swallowed'


print(a(), b(), c())

# id: conv-exceptions-007
# construct: exceptions
# modes: original,unstaged,staged
# expect: agree
# about: finally containing continue/break overrides a return and an exception in progress

def f():
    log = []
    for i in range(4):
        try:
            if i == 0:
                return 'returned'
            if i == 1:
                raise ValueError('lost')
            log.append(i)
        finally:
            log.append('fin%d' % i)
            if i < 2:
                continue
            if i == 3:
                break
    return log


print(f())

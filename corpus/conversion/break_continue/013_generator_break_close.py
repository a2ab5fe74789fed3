# id: conv-break_continue-013
# construct: break_continue
# modes: original,unstaged
# expect: agree
# about: breaking out of a for over a generator leaves it suspended; finally runs only when it is closed

def gen(log):
    try:
        for i in range(10):
            log.append('yield%d' % i)
            yield i
    finally:
        log.append('gen finally')


def f():
    log = []
    g = gen(log)
    for v in g:
        if v == 2:
            break
    log.append('after loop')
    g.close()
    log.append('closed')
    return log


print(f())

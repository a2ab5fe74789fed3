# id: conv-unbound-006
# construct: unbound
# modes: original,unstaged
# expect: agree
# about: a local deleted inside a loop then read in a following iteration (caught), and re-bound later

def f():
    log = []
    tmp = 'first'
    for i in range(3):
        try:
            log.append(tmp)
        except UnboundLocalError as e:
            log.append(type(e).__name__)
            tmp = 'rebound%d' % i
            continue
        del tmp
    return log


print(f())

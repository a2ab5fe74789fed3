# id: conv-nested-005
# construct: nested
# modes: original,unstaged
# expect: agree
# about: continue in a for inside a while, both with else clauses; which else clauses run

def cond(n):
    print('cond', n)
    return n > 0


def f(n):
    log = []
    while cond(n):
        for i in range(n):
            if i % 2:
                continue
            log.append((n, i))
        else:
            log.append('for-else %d' % n)
        n -= 1
    else:
        log.append('while-else')
    return log


print(f(3))

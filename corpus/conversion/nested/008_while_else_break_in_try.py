# id: conv-nested-008
# construct: nested
# modes: original,unstaged
# expect: agree
# about: break inside try/except inside a while/else: the else is skipped and finally runs

def f(xs):
    log = []
    i = 0
    while i < len(xs):
        try:
            v = 100 // xs[i]
            if v > 30:
                log.append('big')
                break
            log.append(v)
        except ZeroDivisionError:
            log.append('zero')
        finally:
            i += 1
    else:
        log.append('exhausted')
    return log, i


print(f([10, 0, 5, 2]))
print(f([10, 0]))

# id: conv-return-002
# construct: return
# modes: original,unstaged
# expect: agree
# about: return inside try/finally inside a loop: finally runs, the returned value was computed before finally

def f(xs):
    log = []
    for x in xs:
        try:
            if x < 0:
                log.append('returning')
                return x, log
            log.append(x)
        finally:
            log.append('finally')
    return None, log


print(f([1, -2, 3]))
print(f([1]))

# id: conv-break_continue-008
# construct: break_continue
# modes: original,unstaged
# expect: agree
# about: continue and break inside try with finally: finally runs each time

def f():
    log = []
    for i in range(5):
        try:
            if i == 1:
                continue
            if i == 3:
                break
            log.append(i)
        finally:
            log.append('fin' + str(i))
    return log


print(f())

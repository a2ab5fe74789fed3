# id: conv-exceptions-001
# construct: exceptions
# modes: original,unstaged
# expect: agree
# about: order of try / except / else / finally clauses for the raising and non-raising paths

def f(x):
    log = []
    try:
        log.append('try')
        r = 10 // x
    except ZeroDivisionError:
        log.append('except')
        r = None
    else:
        log.append('else')
    finally:
        log.append('finally')
    log.append('after')
    return r, log


print(f(2))
print(f(0))

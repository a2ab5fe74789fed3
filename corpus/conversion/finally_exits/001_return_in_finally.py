# id: conv-finally_exits-001
# construct: finally_exits
# modes: original,unstaged,staged
# expect: agree
# about: a return inside finally cancels what is in flight: an exception, the try's return (its value replaced), a break and a continue of the loop around the try; conditional, so the in-flight exit goes on when the finally does not return

log = []


def over_exception(n):
    try:
        log.append('body')
        raise KeyError(n)
    finally:
        if n:
            return 'finally', n
        log.append('not cancelled')


def over_return(n):
    try:
        return 'try', n
    finally:
        if n > 1:
            return 'finally', n


def over_break(n):
    for i in range(5):
        try:
            if i == n:
                break
        finally:
            if i == 2:
                return 'finally', i
    return 'after loop', i


def over_continue(n):
    i = 0
    while i < 5:
        i += 1
        try:
            if i <= n:
                continue
            log.append(i)
        finally:
            if i == 3:
                return 'finally', i
    return 'after loop', i


for n in range(4):
    try:
        print(n, over_exception(n))
    except KeyError as e:
        print(n, 'raised', repr(e))
    print(n, over_return(n), over_break(n), over_continue(n))
print(log)

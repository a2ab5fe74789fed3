# id: conv-finally_exits-002
# construct: finally_exits
# modes: original,unstaged,staged
# expect: agree
# about: a break inside finally cancels an exception, a return, an earlier break (same loop) and a continue in flight; the loop's else clause does not run, code after the loop does

log = []


def over_exception(n):
    for i in range(4):
        try:
            log.append(i)
            if i == n:
                raise ValueError(i)
        finally:
            if i >= n:
                break
    else:
        return 'else'
    return 'after', i


def over_return(n):
    for i in range(4):
        try:
            if i >= n:
                return 'try', i
        finally:
            if i == 1:
                break
    return 'after', i


def over_continue(n):
    total = 0
    for i in range(6):
        try:
            if i % 2:
                continue
            total += i
        finally:
            if i == n:
                break
    return total, i


def over_break(n):
    k = 0
    while True:
        k += 1
        try:
            if k > n:
                break
        finally:
            if k == 2:
                break
    return k


for n in range(4):
    print(n, over_exception(n), over_return(n), over_continue(n), over_break(n))
print(log)

# id: conv-finally_exits-003
# construct: finally_exits
# modes: original,unstaged,staged
# expect: agree
# about: a continue inside finally cancels an exception, a return, a break and an earlier continue in flight; the loop goes on to its next iteration (and its else clause runs at the end)

log = []


def over_exception(n):
    caught = []
    for i in range(4):
        try:
            raise KeyError(i)
        finally:
            caught.append(i)
            if i != n:
                continue
    else:
        caught.append('else')
    return caught


def over_return(n):
    seen = []
    for i in range(4):
        try:
            return 'try', i
        finally:
            seen.append(i)
            if i < n:
                continue
    return 'after', seen


def over_break(n):
    seen = []
    i = 0
    while i < 5:
        i += 1
        try:
            seen.append(i)
            break
        finally:
            if i <= n:
                continue
    else:
        seen.append('else')
    return seen


def over_continue(n):
    seen = []
    for i in range(5):
        try:
            if i % 2:
                continue
        finally:
            if i == n:
                continue
            seen.append(i)
        seen.append(-i)
    return seen


for n in range(4):
    try:
        print(n, over_exception(n))
    except KeyError as e:
        print(n, 'raised', repr(e))
    print(n, over_return(n), over_break(n), over_continue(n))

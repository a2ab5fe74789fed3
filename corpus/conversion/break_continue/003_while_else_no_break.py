# id: conv-break_continue-003
# construct: break_continue
# modes: original,unstaged
# expect: agree
# about: while/else without break: else runs once after the test (a printing call) turns false

def cond(i):
    print('cond', i)
    return i < 2


def f():
    i = 0
    while cond(i):
        i += 1
        if i > 100:
            break
    else:
        print('else', i)
        i = -i
    return i


print(f())

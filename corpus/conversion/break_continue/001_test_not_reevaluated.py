# id: conv-break_continue-001
# construct: break_continue
# modes: original,unstaged
# expect: agree
# about: after break the while test (a printing call) must not be evaluated again

def cond(i):
    print('cond', i)
    return i < 10


def f():
    i = 0
    while cond(i):
        print('body', i)
        if i == 2:
            break
        i += 1
    print('after loop', i)
    return i


f()

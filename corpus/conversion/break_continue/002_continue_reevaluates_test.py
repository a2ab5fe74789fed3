# id: conv-break_continue-002
# construct: break_continue
# modes: original,unstaged
# expect: agree
# about: continue jumps to the while test (a printing call), which is evaluated again

def cond(i):
    print('cond', i)
    return i < 5


def f():
    i = 0
    odds = []
    while cond(i):
        i += 1
        if i % 2 == 0:
            continue
        odds.append(i)
        print('odd', i)
    return odds


print(f())

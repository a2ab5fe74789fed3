# id: conv-break_continue-014
# construct: break_continue
# modes: original,unstaged
# expect: agree
# about: continue in a while loop with an else clause; else runs when the printing test fails

def t(n):
    print('test', n)
    return n > 0


def f(n):
    seen = []
    while t(n):
        n -= 1
        if n == 2:
            continue
        seen.append(n)
    else:
        seen.append('else')
    return seen


print(f(4))

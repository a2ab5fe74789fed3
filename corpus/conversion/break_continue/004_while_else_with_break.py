# id: conv-break_continue-004
# construct: break_continue
# modes: original,unstaged
# expect: agree
# about: while/else with break: else skipped, the test is not evaluated after the break

def cond(i):
    print('cond', i)
    return True


def f(stop):
    i = 0
    while cond(i):
        if i == stop:
            print('break at', i)
            break
        i += 1
    else:
        print('else never')
    return i


print(f(0))
print(f(2))

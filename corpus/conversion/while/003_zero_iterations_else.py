# id: conv-while-003
# construct: while
# modes: original,unstaged
# expect: agree
# about: while/else where the body never runs; else still runs and the body-only variable stays unbound

def f(n):
    while n > 0:
        last = n
        n -= 1
    else:
        print('else runs, n =', n)
    try:
        return last
    except UnboundLocalError as e:
        print(type(e).__name__)
        return None


print(f(3))
print(f(0))

# id: conv-unbound-003
# construct: unbound
# modes: original,unstaged
# expect: agree
# about: a name assigned only in a while body that never runs, read in a later if

def f(n):
    while n > 0:
        found = n
        n -= 2
    if n <= 0:
        try:
            print('found', found)
        except UnboundLocalError as e:
            print('n =', n, type(e).__name__)
    return n


print(f(3))
print(f(-1))

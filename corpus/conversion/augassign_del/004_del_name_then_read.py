# id: conv-augassign_del-004
# construct: augassign_del
# modes: original,unstaged
# expect: agree
# about: del of a local name then reading it raises UnboundLocalError; re-assigning makes it readable again

def f():
    x = 10
    y = x * 2
    del x
    try:
        print(x)
    except UnboundLocalError as e:
        print(type(e).__name__)
    x = y + 1
    return x


print(f())

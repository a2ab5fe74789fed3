# id: conv-scoping-010
# construct: scoping
# modes: original,unstaged
# expect: agree
# about: unbounded recursion raises RecursionError, which is caught; only the type is printed because depths differ

calls = 0


def down(n):
    global calls
    calls += 1
    if n < 0:
        return n
    return down(n + 1)


def run():
    try:
        down(0)
    except RecursionError as e:
        return type(e).__name__
    return 'no error'


print(run())
print(calls > 100)
calls = 0

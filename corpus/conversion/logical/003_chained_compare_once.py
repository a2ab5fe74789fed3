# id: conv-logical-003
# construct: logical
# modes: original,unstaged
# expect: agree
# about: chained comparison: the middle operand (a printing call) is evaluated exactly once

calls = 0


def mid(x):
    global calls
    calls += 1
    print('mid', x)
    return x


def inside(lo, x, hi):
    return lo < mid(x) <= hi


print(inside(0, 5, 10), inside(0, 11, 10), inside(6, 5, 10))
print('calls', calls)

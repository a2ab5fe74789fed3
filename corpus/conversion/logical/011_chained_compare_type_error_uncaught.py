# id: conv-logical-011
# construct: logical
# modes: original,unstaged
# expect: agree
# about: a chained comparison inside and/or raises TypeError comparing str and int; the program ends with it

def t(x):
    print('operand', x)
    return x


def in_range(lo, v, hi):
    return lo <= t(v) < hi or t(v) == 'special'


print(in_range(1, 5, 10), in_range(1, 50, 10))
print(in_range(1, 'special', 10))

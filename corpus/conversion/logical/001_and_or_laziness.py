# id: conv-logical-001
# construct: logical
# modes: original,unstaged
# expect: agree
# about: and/or evaluate operands left to right and stop early; return the deciding operand, not a bool

def t(name, v):
    print('eval', name)
    return v


def f():
    r1 = t('a', 0) and t('b', 1)
    r2 = t('c', 2) and t('d', 'x')
    r3 = t('e', '') or t('f', []) or t('g', 'last')
    r4 = t('h', 5) or t('i', 6)
    return r1, r2, r3, r4


print(f())

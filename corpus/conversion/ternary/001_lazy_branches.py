# id: conv-ternary-001
# construct: ternary
# modes: original,unstaged
# expect: agree
# about: only the selected branch of a conditional expression is evaluated; both are printing calls

def t(x):
    print('eval', x)
    return x


def pick(c):
    return t('yes') if t(c) else t('no')


print(pick(1))
print(pick(0))
print(pick(''))

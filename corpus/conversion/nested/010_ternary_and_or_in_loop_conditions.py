# id: conv-nested-010
# construct: nested
# modes: original,unstaged
# expect: agree
# about: ternaries and and/or chains with printing operands inside while and if tests in a loop

def t(tag, v):
    print(tag, end=' ')
    return v


def f(xs):
    out = []
    i = 0
    while t('w', i < len(xs)) and (t('p', xs[i] >= 0) or t('z', xs[i] == -1)):
        x = xs[i]
        out.append(t('a', 'even') if x % 2 == 0 else t('b', 'odd'))
        i += 1
    print()
    return out, i


print(f([2, -1, 3, -5, 4]))
print(f([]))

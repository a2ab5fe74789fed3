# id: conv-lists_subscripts-002
# construct: lists_subscripts
# modes: original,unstaged
# expect: agree
# about: evaluation order of a[f()] = g(): the right side first, then the container, then the index

def t(name, v):
    print('eval', name)
    return v


def f():
    data = [0, 0, 0]
    d = {}
    t('container', data)[t('index', 1)] = t('value', 'v')
    t('dict', d)[t('key', 'k')] = t('value2', 2)
    t('c1', data)[t('i1', 0)], t('c2', data)[t('i2', 2)] = t('rhs', (10, 20))
    return data, d


print(f())

# id: conv-lists_subscripts-003
# construct: lists_subscripts
# modes: original,unstaged
# expect: agree
# about: IndexError and KeyError raised by subscripts inside loops and conditions

def get_all(xs, idxs):
    out = []
    for i in idxs:
        try:
            out.append(xs[i])
        except IndexError as e:
            out.append(type(e).__name__ + ': ' + str(e))
    return out


def lookup(d, keys):
    out = []
    for k in keys:
        if k.startswith('_'):
            continue
        try:
            out.append(d[k])
        except KeyError as e:
            out.append('KeyError ' + str(e))
    return out


print(get_all([10, 20, 30], [0, -1, 3, -4]))
print(lookup({'a': 1}, ['a', '_b', 'c']))

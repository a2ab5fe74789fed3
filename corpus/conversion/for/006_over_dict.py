# id: conv-for-006
# construct: for
# modes: original,unstaged
# expect: agree
# about: iterating a dict, .items(), .keys(), .values(); insertion order is preserved

def invert(d):
    out = {}
    for k, v in d.items():
        out.setdefault(v, []).append(k)
    return out


def scan(d):
    keys = []
    for k in d:
        keys.append(k)
    vals = 0
    for v in d.values():
        vals += v
    return keys, vals


d = {'b': 1, 'a': 2, 'c': 1, 'd': 3}
print(invert(d))
print(scan(d))

# id: conv-for-001
# construct: for
# modes: original,unstaged
# expect: agree
# about: for with tuple unpacking targets over a list of pairs and nested tuples

def f(pairs):
    total = 0
    names = []
    for name, (a, b) in pairs:
        total += a * b
        names.append(name)
    return total, names


print(f([('x', (1, 2)), ('y', (3, 4)), ('z', (5, 6))]))

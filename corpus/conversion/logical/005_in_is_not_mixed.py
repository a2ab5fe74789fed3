# id: conv-logical-005
# construct: logical
# modes: original,unstaged
# expect: agree
# about: comparisons mixing in, not in, is, is not and == in chains and boolean combinations

def probe(x, xs, sentinel=None):
    a = x in xs is not None
    b = x is not sentinel and x not in xs
    c = 1 < x in xs
    d = None is sentinel is not x
    return a, b, c, d


print(probe(2, [1, 2, 3]))
print(probe(5, [1, 2, 3]))
print(probe(0, [None, 0]))

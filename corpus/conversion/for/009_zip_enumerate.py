# id: conv-for-009
# construct: for
# modes: original,unstaged
# expect: agree
# about: zip (shortest wins) and enumerate with a start value, nested unpacking of enumerate(zip(...))

def pairs(a, b):
    out = []
    for i, (x, y) in enumerate(zip(a, b), 1):
        out.append(f'{i}:{x}{y}')
    return out


def dot(u, v):
    s = 0
    for x, y in zip(u, v):
        s += x * y
    return s


print(pairs('abcd', [1, 2, 3]))
print(dot([1, 2, 3], [4, 5, 6]), dot([], [1]))

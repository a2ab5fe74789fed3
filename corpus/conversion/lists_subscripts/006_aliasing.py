# id: conv-lists_subscripts-006
# construct: lists_subscripts
# modes: original,unstaged
# expect: agree
# about: aliasing: two names for one list, [[0]*3]*3 shares rows, copies do not

def f():
    a = [1, 2]
    b = a
    b.append(3)
    c = a[:]
    c.append(4)
    grid = [[0] * 3] * 3
    grid[0][0] = 9
    good = [[0] * 3 for _ in range(3)]
    good[0][0] = 9
    return a, c, grid, good


print(f())

# id: conv-lists_subscripts-004
# construct: lists_subscripts
# modes: original,unstaged
# expect: agree
# about: nested lists and dicts: reading, writing and appending through chains of subscripts

def build(n):
    grid = [[0] * n for _ in range(n)]
    for i in range(n):
        for j in range(n):
            grid[i][j] = i * n + j
    index = {'rows': {}, 'diag': []}
    for i, row in enumerate(grid):
        index['rows'][i] = sum(row)
        index['diag'].append(grid[i][i])
    index['rows'][0] += 100
    return grid, index


g, idx = build(3)
print(g)
print(idx)

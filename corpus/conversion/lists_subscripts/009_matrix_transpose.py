# id: conv-lists_subscripts-009
# construct: lists_subscripts
# modes: original,unstaged
# expect: agree
# about: matrix multiply and transpose with index loops and list comprehensions

def transpose(m):
    return [[m[i][j] for i in range(len(m))] for j in range(len(m[0]))]


def matmul(a, b):
    n, k, p = len(a), len(b), len(b[0])
    out = [[0] * p for _ in range(n)]
    for i in range(n):
        for j in range(p):
            s = 0
            for t in range(k):
                s += a[i][t] * b[t][j]
            out[i][j] = s
    return out


a = [[1, 2, 3], [4, 5, 6]]
print(transpose(a))
print(matmul(a, transpose(a)))

# id: conv-comprehensions_lambdas-002
# construct: comprehensions_lambdas
# modes: original,unstaged
# expect: agree
# about: nested comprehensions: flatten, matrix build, dict and set comprehensions with ternaries

def f(n):
    grid = [[i * n + j for j in range(n)] for i in range(n)]
    flat = [v for row in grid for v in row if v % 2 == 0]
    pairs = [(i, j) for i in range(n) for j in range(i) if (i + j) % 2]
    d = {v: ('even' if v % 2 == 0 else 'odd') for v in flat[:3]}
    s = {v % 3 for row in grid for v in row}
    return grid, flat, pairs, d, sorted(s)


def main():
    for part in f(3):
        print(part)


main()

# id: conv-nested-009
# construct: nested
# modes: original,unstaged
# expect: agree
# about: closures created in nested loops capture the loop variables by reference; nonlocal accumulation through them

def f():
    fns = []
    acc = []
    for i in range(2):
        for j in range(2):
            def g(k=None):
                return (i, j, k)
            fns.append(g)
            if i == j:
                fns.append(lambda: ('lam', i, j))
    i = 'late'
    for fn in fns:
        acc.append(fn())
    return acc


def main():
    for row in f():
        print(row)


main()

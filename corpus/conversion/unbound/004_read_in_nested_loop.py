# id: conv-unbound-004
# construct: unbound
# modes: original,unstaged
# expect: agree
# about: a name bound in a branch that is never taken, read inside a later nested loop and if

def f(rows, threshold):
    for r in rows:
        if sum(r) > threshold:
            best = r
    out = []
    for i in range(2):
        for j in range(2):
            if i == j:
                try:
                    out.append((i, best[j]))
                except UnboundLocalError as e:
                    out.append((i, type(e).__name__))
    return out


print(f([[1, 2], [3, 4]], 5))
print(f([[1, 2], [3, 4]], 50))

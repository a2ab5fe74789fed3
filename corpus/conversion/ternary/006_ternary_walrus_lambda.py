# id: conv-ternary-006
# construct: ternary
# modes: original,unstaged
# expect: agree
# about: ternary inside a lambda and with a walrus in the test; the walrus binding is visible after

def f(xs):
    g = lambda v: v * 10 if v > 1 else -v
    out = []
    for x in xs:
        out.append(g(x) if (y := x + 1) % 2 else y)
    return out, y


print(f([1, 2, 3, 4]))

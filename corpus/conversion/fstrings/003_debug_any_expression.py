# id: conv-fstrings-003
# construct: fstrings
# modes: original,unstaged,staged
# expect: agree
# about: issue 16: f-string `=` forms with any expression: comprehensions, lambdas, walrus in parentheses, conditional expressions, and/or/not, chained comparisons, calls of methods, starred and dict displays; each is rewritten by some pass, and the text stays the source's

def f(a):
    return a * 2


def exprs(xs, w):
    print(f"{[x * 2 for x in xs if x] = }", f"{ {k: f(k) for k in xs} = }")
    print(f"{(lambda y: y + 1)(3) = }", f"{(lambda: f(1))() = !s}")
    print(f"{(n := len(xs)) = } {n = } {(m := f(n)) = :>5}")
    print(f"{'a' if xs else 'b' = }", f"{f(1) if not xs else f(2) = }")
    print(f"{xs and w = }", f"{not xs or w = }", f"{1 < w < 9 = }", f"{xs[0] < f(w) <= 99 = }")
    print(f"{xs.index(2) = }", f"{[*xs, f(w)] = }", f"{ {**{'a': f(1)}} = }")
    print(f"{sum(f(x) for x in xs) = :#x}")
    return f"{w=}" + f"{w=!r:>{f(w)}}"


print(exprs([1, 2, 3], 6))

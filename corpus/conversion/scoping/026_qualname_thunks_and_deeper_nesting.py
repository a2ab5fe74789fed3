# id: conv-scoping-026
# construct: scoping
# modes: original,unstaged,staged
# expect: agree
# about: lambdas in the converter's thunks (and, ternary, while test), a function nested in one made in a for body, lambdas with children called at once or stored by subscript: qualnames are the original's
# origin: written by hand for the scaffolding qualname fix, 2026-11-26
# status: fixed

def f(a):
    g = a and (lambda: 1)
    h = (lambda: 2) if a else None
    for i in range(1):
        def outer():
            def inner():
                pass
            return inner
    k = (lambda: lambda: 5)()
    box = [None]
    box[0] = lambda: (j for j in range(2))
    while (lambda: a)():
        a -= 1
        w = lambda: 0
    return g.__qualname__, h.__qualname__, outer().__qualname__, k.__qualname__, box[0]().__qualname__, w.__qualname__


r = f(1)
print(r)

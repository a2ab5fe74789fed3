# id: conv-scoping-023
# construct: scoping
# modes: original,unstaged,staged
# expect: agree
# about: lambdas in a list and a set comprehension and a generator expression inside a for body: their qualnames are the original's
# origin: written by hand for the scaffolding qualname fix, 2026-11-26
# status: fixed

def f(n):
    out = []
    for i in range(n):
        fs = [lambda: j for j in range(2)]
        gen = (k for k in range(i))
        out.append([h.__qualname__ for h in fs] + [gen.__qualname__])
        if i:
            out.append(sorted({(lambda: k).__qualname__ for k in range(3)}))
    return out


r = f(2)
print(r)

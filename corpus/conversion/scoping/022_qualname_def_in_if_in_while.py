# id: conv-scoping-022
# construct: scoping
# modes: original,unstaged,staged
# expect: agree
# about: a function defined in an if inside a while: its qualname, repr and missing-argument message are the original's
# origin: written by hand for the scaffolding qualname fix, 2026-11-26
# status: fixed

def f(n):
    names = []
    while n > 0:
        n -= 1
        if n % 2:
            def g(a):
                return a
            names.append(g.__qualname__)
            try:
                g()
            except TypeError as e:
                names.append(str(e))
        else:
            names.append(repr(g).split(' at ')[0] if names else 'none')
    return names


r = f(4)
print(r)

# id: conv-scoping-024
# construct: scoping
# modes: original,unstaged,staged
# expect: agree
# about: a function declared global and a local one, both defined in a for body: qualnames g and f.<locals>.local
# origin: written by hand for the scaffolding qualname fix, 2026-11-26
# status: fixed

def f(n):
    global g
    for i in range(n):
        def g():
            return i

        def local():
            return i
    return g.__qualname__, local.__qualname__


r = f(2)
print(r, g())

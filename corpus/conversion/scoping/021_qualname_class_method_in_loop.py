# id: conv-scoping-021
# construct: scoping
# modes: original,unstaged,staged
# expect: agree
# about: a class with methods defined in a for body: the class's and its method's __qualname__, the class repr and the method's arity message are the original's
# origin: written by hand for the scaffolding qualname fix, 2026-11-26
# status: fixed

def f(n):
    out = []
    for i in range(n):
        class C:
            def m(self):
                return i

            def __repr__(self):
                return 'C()'
        out.append((C.__qualname__, C.m.__qualname__, repr(C), C().m.__qualname__))
        try:
            C().m(i)
        except TypeError as e:
            out.append(str(e))
    return out


r = f(2)
print(r)

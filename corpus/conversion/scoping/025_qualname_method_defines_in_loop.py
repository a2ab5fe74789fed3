# id: conv-scoping-025
# construct: scoping
# modes: original,unstaged,staged
# expect: agree
# about: a method whose for and if bodies define a function, a lambda and a class: qualnames under A.m.<locals>
# origin: written by hand for the scaffolding qualname fix, 2026-11-26
# status: fixed

class A:
    def m(self, n):
        out = []
        for i in range(n):
            def h():
                return i
            out.append(h.__qualname__)
            if i:
                out.append((lambda: 0).__qualname__)
            else:
                out.append(type(self).__qualname__)

        class B:
            pass
        out.append(B.__qualname__)
        return out


r = A().m(2)
print(r)

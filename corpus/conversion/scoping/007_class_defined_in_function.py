# id: conv-scoping-007
# construct: scoping
# modes: original,unstaged
# expect: agree
# about: a class defined inside a function closes over the function's locals in its methods

def make_class(factor):
    class Scaler:
        calls = 0

        def scale(self, v):
            Scaler.calls += 1
            return v * factor

    s = Scaler()
    out = [s.scale(i) for i in range(3)]
    factor = -1
    out.append(s.scale(5))
    return out, Scaler.calls


print(make_class(3))

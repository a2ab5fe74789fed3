# id: conv-calls-003
# construct: calls
# modes: original,unstaged
# expect: agree
# about: TypeErrors from bad calls: missing/unexpected/duplicate arguments, calling a non-callable

def g(a, b, *, k=0):
    return a + b + k


def tries():
    attempts = [
        lambda: g(1),
        lambda: g(1, 2, 3),
        lambda: g(1, 2, z=3),
        lambda: g(1, a=2),
        lambda: g.__name__(),
        lambda: len(1),
        lambda: int('x'),
    ]
    for i, call in enumerate(attempts):
        try:
            print(i, call())
        except (TypeError, ValueError) as e:
            print(i, type(e).__name__, e)
    return g(1, 2, k=3)


print(tries())

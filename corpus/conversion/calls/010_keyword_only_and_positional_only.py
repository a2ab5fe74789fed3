# id: conv-calls-010
# construct: calls
# modes: original,unstaged
# expect: agree
# about: positional-only and keyword-only parameters; misuse raises TypeError

def f(a, b, /, c, *, d):
    return a, b, c, d


def run():
    out = [f(1, 2, 3, d=4), f(1, 2, c=3, d=4)]
    for bad in (lambda: f(1, b=2, c=3, d=4), lambda: f(1, 2, 3, 4)):
        try:
            bad()
        except TypeError as e:
            out.append(type(e).__name__)
    return out


print(run())

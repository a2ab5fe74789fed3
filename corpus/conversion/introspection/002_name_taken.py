# id: conv-introspection-002
# construct: introspection
# modes: original,unstaged,staged
# expect: agree
# about: issue 16: a program that uses the name ag__ itself (the runtime takes another builtin name) sees only its own ag__, in globals and in a converted function's locals

ag__ = "mine"


def f(n):
    ag__ = n + 1
    if ag__ > 1:
        total = ag__ * 2
    else:
        total = 0
    return total


print(ag__, f(1), f(0))
print(sorted(k for k in globals() if k.startswith("ag")))
print(globals()["ag__"], "ag__1" in globals(), "ag__1" in dir())

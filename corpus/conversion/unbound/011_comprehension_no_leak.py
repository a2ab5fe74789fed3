# id: conv-unbound-011
# construct: unbound
# modes: original,unstaged
# expect: agree
# about: comprehension and generator variables do not leak into the function; reading them raises NameError (uncaught)

def f(xs):
    squares = [v * v for v in xs]
    total = sum(w for w in xs)
    print(squares, total)
    return v


f([1, 2, 3])

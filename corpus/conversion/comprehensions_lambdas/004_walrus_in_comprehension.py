# id: conv-comprehensions_lambdas-004
# construct: comprehensions_lambdas
# modes: original,unstaged
# expect: agree
# about: walrus in a comprehension binds in the enclosing function scope; the last bound value is visible after

def f(xs):
    total = 0
    running = [total := total + x for x in xs]
    found = [y for x in xs if (y := x * x) > 10]
    return running, total, found, y


print(f([1, 5, 2, 4]))

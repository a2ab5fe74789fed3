# id: conv-comprehensions_lambdas-001
# construct: comprehensions_lambdas
# modes: original,unstaged
# expect: agree
# about: list comprehension filters combining and/or/not with printing predicates (short-circuit per element)

def small(x):
    print('small?', x)
    return x < 3


def even(x):
    print('even?', x)
    return x % 2 == 0


def f(xs):
    a = [x for x in xs if small(x) and even(x)]
    b = [x for x in xs if not small(x) or even(x)]
    return a, b


print(f([0, 1, 4]))

# id: conv-comprehensions_lambdas-005
# construct: comprehensions_lambdas
# modes: original,unstaged
# expect: agree
# about: comprehension variables have their own scope; loop variable of the enclosing function is not overwritten

def f():
    x = 'kept'
    squares = [x * x for x in range(4)]
    i = 99
    gen_total = sum(i for i in range(3))
    nested = [[x for x in range(k)] for k in range(3)]
    return x, i, squares, gen_total, nested


print(f())

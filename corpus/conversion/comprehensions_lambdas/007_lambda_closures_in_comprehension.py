# id: conv-comprehensions_lambdas-007
# construct: comprehensions_lambdas
# modes: original,unstaged
# expect: agree
# about: lambdas created in a comprehension share the comprehension variable (late binding) unless bound by a default

def f():
    late = [lambda: i for i in range(3)]
    early = [lambda i=i: i for i in range(3)]
    adders = {n: (lambda x, n=n: x + n) for n in (1, 10)}
    return [g() for g in late], [g() for g in early], adders[10](5)


print(f())

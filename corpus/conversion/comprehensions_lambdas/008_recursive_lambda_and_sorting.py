# id: conv-comprehensions_lambdas-008
# construct: comprehensions_lambdas
# modes: original,unstaged
# expect: agree
# about: a recursive lambda through a name in the enclosing scope and a multi-key sort with lambdas

def f():
    fact = lambda n: 1 if n <= 1 else n * fact(n - 1)
    people = [('bo', 30), ('al', 25), ('cy', 30), ('di', 25)]
    by_age = sorted(people, key=lambda p: (-p[1], p[0]))
    oldest = max(people, key=lambda p: p[1])
    return [fact(k) for k in range(6)], by_age, oldest


print(f())

# id: conv-comprehensions_lambdas-009
# construct: comprehensions_lambdas
# modes: original,unstaged
# expect: agree
# about: found by stagecheck fuzz (seed 1, index 86): and/or, ternaries and chained comparisons inside a comprehension stay as written; converted to thunks they hit a RustPython 0.5 compiler bug ("the symbol 'c' must be present in the symbol table" for [g(lambda: c) for c in x if h(lambda: 8, lambda: c)])

def f(i, xs):
    picked = [(c and c) for c in xs for d in range(2) if (i > 8 >= c)]
    labels = {c: ('big' if c > 3 else 'small') for c in xs if c or i}
    return max(picked, default=-1), labels


print(f(9, [0, 5, 7, 2]))
print(f(1, [4]))

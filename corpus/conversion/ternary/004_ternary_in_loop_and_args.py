# id: conv-ternary-004
# construct: ternary
# modes: original,unstaged
# expect: agree
# about: ternaries as loop state updates, call arguments and subscripts

def step(xs):
    total = 0
    for i, x in enumerate(xs):
        total += x if i % 2 == 0 else -x
        xs[i if i < 2 else 0] = x * 2 if x > 2 else x
    return total, max(xs[0], xs[-1] if xs else 0)


print(step([1, 2, 3, 4, 5]))

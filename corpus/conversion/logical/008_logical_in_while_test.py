# id: conv-logical-008
# construct: logical
# modes: original,unstaged
# expect: agree
# about: and/or inside a while test: the right operand is evaluated only when needed on each iteration

def has(xs, i):
    print('has', i)
    return i < len(xs)


def positive(xs, i):
    print('positive', i)
    return xs[i] > 0


def prefix(xs):
    i = 0
    while has(xs, i) and positive(xs, i):
        i += 1
    return xs[:i]


print(prefix([3, 1, -2, 5]))
print(prefix([1]))

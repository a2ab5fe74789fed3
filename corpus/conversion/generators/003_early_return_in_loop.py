# id: conv-generators-003
# construct: generators
# modes: original,unstaged
# expect: agree
# about: a generator returns early from inside a nested loop; the for loop driving it sees only the yielded values

def pairs_until(limit):
    for i in range(10):
        for j in range(i):
            if i * j > limit:
                return
            if (i + j) % 3 == 0:
                yield (i, j)


def use(limit):
    got = []
    for p in pairs_until(limit):
        got.append(p)
    return got


print(use(6))
print(use(0))

# id: conv-scoping-001
# construct: scoping
# modes: original,unstaged
# expect: agree
# about: a global counter incremented inside a loop and inside a branch of a function

hits = 0
misses = 0


def tally(xs):
    global hits, misses
    for x in xs:
        if x % 3 == 0:
            hits += 1
        else:
            misses += 1
    return hits - misses


print(tally(range(10)))
print(tally([3, 6]))
print(hits, misses)

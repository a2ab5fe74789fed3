# id: conv-for-005
# construct: for
# modes: original,unstaged
# expect: agree
# about: for over ranges with steps, negative steps and empty ranges; the loop variable keeps its last value

def last_of(r):
    i = 'untouched'
    for i in r:
        pass
    return i


def sums():
    s = []
    for r in (range(5), range(2, 11, 3), range(10, 0, -4), range(0), range(5, 5)):
        t = 0
        for i in r:
            t += i
        s.append(t)
    return s


print(sums())
print(last_of(range(4)), last_of(range(3, 0, -1)), last_of(range(0)))

# id: conv-generators-008
# construct: generators
# modes: original,unstaged
# expect: agree
# about: an exception raised inside a generator body while a for loop consumes it ends the program

def reciprocals(xs):
    for x in xs:
        print('computing 1 /', x)
        yield 1 / x


def total(xs):
    s = 0
    for r in reciprocals(xs):
        s += r
    return s


print(total([1, 2, 4]))
print(total([1, 0, 2]))

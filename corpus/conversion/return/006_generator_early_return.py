# id: conv-return-006
# construct: return
# modes: original,unstaged
# expect: agree
# about: return inside a generator ends it; the return value becomes StopIteration.value

def gen(n):
    for i in range(n):
        if i == 2:
            return 'stopped at 2'
        yield i
    return 'ran out'


def drive(n):
    g = gen(n)
    got = []
    while True:
        try:
            got.append(next(g))
        except StopIteration as e:
            return got, e.value


print(drive(5))
print(drive(1))
print(list(gen(10)))

# id: conv-generators-002
# construct: generators
# modes: original,unstaged
# expect: agree
# about: yield from delegates to a sub-generator and receives its return value

def sub(tag, n):
    for i in range(n):
        yield tag + str(i)
    return tag.upper() * n


def outer():
    r1 = yield from sub('a', 2)
    print('sub a returned', r1)
    r2 = yield from sub('b', 0)
    print('sub b returned', repr(r2))
    yield from [r1, r2]
    yield from 'xy'


print(list(outer()))

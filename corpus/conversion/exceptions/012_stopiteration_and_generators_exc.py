# id: conv-exceptions-012
# construct: exceptions
# modes: original,unstaged
# expect: agree
# about: exceptions thrown into a generator, caught inside it, and exceptions escaping a generator through a for loop

def gen():
    for i in range(5):
        try:
            yield i
        except ValueError as e:
            print('gen caught', e)
            yield 'recovered'


def run():
    g = gen()
    out = [next(g), next(g)]
    out.append(g.throw(ValueError('injected')))
    out.append(next(g))
    return out


def bad_gen():
    yield 1
    raise KeyError('from generator')


def consume():
    got = []
    try:
        for v in bad_gen():
            got.append(v)
    except KeyError as e:
        got.append(str(e))
    return got


print(run())
print(consume())

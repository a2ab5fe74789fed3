# id: conv-generators-001
# construct: generators
# modes: original,unstaged
# expect: agree
# about: a generator's body runs lazily: prints interleave with next() calls; exhaustion raises StopIteration

def counter(n):
    print('start')
    i = 0
    while i < n:
        print('before yield', i)
        yield i
        print('after yield', i)
        i += 1
    print('end')


def drive():
    g = counter(2)
    print('created')
    out = [next(g), next(g)]
    try:
        next(g)
    except StopIteration:
        out.append('stop')
    return out


print(drive())

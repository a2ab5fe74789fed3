# id: conv-generators-005
# construct: generators
# modes: original,unstaged
# expect: agree
# about: a for loop driving an infinite generator with break; the generator state survives and can be resumed

def naturals():
    n = 0
    while True:
        n += 1
        yield n


def take_primes(k):
    g = naturals()
    primes = []
    for n in g:
        if n < 2:
            continue
        for p in primes:
            if n % p == 0:
                break
        else:
            primes.append(n)
        if len(primes) == k:
            break
    return primes, next(g)


print(take_primes(8))

# id: conv-break_continue-011
# construct: break_continue
# modes: original,unstaged
# expect: agree
# about: sieve of Eratosthenes using continue to skip composites

def sieve(n):
    is_p = [True] * (n + 1)
    is_p[0] = is_p[1] = False
    primes = []
    for i in range(2, n + 1):
        if not is_p[i]:
            continue
        primes.append(i)
        for m in range(i * i, n + 1, i):
            is_p[m] = False
    return primes


print(sieve(50))

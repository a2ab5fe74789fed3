# id: conv-while-009
# construct: while
# modes: original,unstaged
# expect: agree
# about: nested while loops computing primes by trial division

def primes_below(n):
    out = []
    c = 2
    while c < n:
        d = 2
        is_prime = True
        while d * d <= c:
            if c % d == 0:
                is_prime = False
                break
            d += 1
        if is_prime:
            out.append(c)
        c += 1
    return out


ps = primes_below(60)
print(ps, len(ps))

# id: conv-if-010
# construct: if
# modes: original,unstaged
# expect: agree
# about: Euclid and binary gcd with if/else inside a while loop

def gcd(a, b):
    while b:
        if a >= b:
            a, b = b, a % b
        else:
            a, b = b, a
    return a


def bgcd(a, b):
    if a == 0:
        return b
    if b == 0:
        return a
    shift = 0
    while (a | b) & 1 == 0:
        a >>= 1
        b >>= 1
        shift += 1
    while a & 1 == 0:
        a >>= 1
    while b:
        while b & 1 == 0:
            b >>= 1
        if a > b:
            a, b = b, a
        b -= a
    return a << shift


pairs = [(48, 18), (17, 5), (100, 75), (0, 9), (12, 0)]


def main():
    for a, b in pairs:
        print(a, b, gcd(a, b), bgcd(a, b))


main()

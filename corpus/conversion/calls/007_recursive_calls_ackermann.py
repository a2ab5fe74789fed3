# id: conv-calls-007
# construct: calls
# modes: original,unstaged
# expect: agree
# about: recursion through plain calls: ackermann and power set builders

def ack(m, n):
    if m == 0:
        return n + 1
    if n == 0:
        return ack(m - 1, 1)
    return ack(m - 1, ack(m, n - 1))


def powerset(xs):
    if not xs:
        return [[]]
    rest = powerset(xs[1:])
    return rest + [[xs[0]] + r for r in rest]


print(ack(2, 3), ack(1, 5))
print(powerset([1, 2, 3]))

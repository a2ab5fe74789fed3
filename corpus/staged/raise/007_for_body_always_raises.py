# id: staged-raise-007
# construct: raise
# modes: original,unstaged,staged
# expect: agree
# about: a for body that always raises: nothing over an empty range, the error at the first iteration otherwise
import stagecheck as sc

@sc.function
def first(xs, n):
    total = sc.constant(0.0)
    for i in sc.range(n):
        total = total + 1.0
        raise LookupError('no row %d' % 0)
    for row in xs:
        total = total + row
    return total

print(first(sc.constant([1.0, 2.0]), sc.constant(0)))
first(sc.constant([1.0, 2.0]), sc.constant(2))

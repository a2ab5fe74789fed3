# id: conv-return-009
# construct: return
# modes: original,unstaged
# expect: agree
# about: return in a nested function returns from it only, not from the outer function

def outer(xs):
    def first_even():
        for x in xs:
            if x % 2 == 0:
                return x
        return None

    r = first_even()
    print('outer continues after inner return', r)
    if r is None:
        return 'no even'
    return r * 100


print(outer([1, 3, 4, 6]))
print(outer([1, 3]))

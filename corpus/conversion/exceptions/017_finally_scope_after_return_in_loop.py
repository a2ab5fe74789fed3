# id: conv-exceptions-017
# construct: exceptions
# modes: original,unstaged
# expect: agree
# about: found by stagecheck fuzz (seed 42, indexes 2344 and 7536): a return inside a loop and a later finally holding a def that reads a maybe-unbound local; the function keeps its statements (see exceptions/016), so the read raises UnboundLocalError as in the original

def f(n):
    i = 0
    while i < 3:
        i += 1
        if i > n:
            return i
    try:
        pass
    finally:
        for k in range(n):
            last = k
        try:
            print('last', last)
        except NameError as e:
            print('unbound', type(e).__name__, e)

            def later():
                return i
    return -1


print(f(0), f(5))

# id: conv-exceptions-017
# construct: exceptions
# modes: original,unstaged
# expect: refused
# reason: ConversionError: a finally block holding a def, lambda or comprehension, inside converted control flow, reads a local that may be unbound
# about: found by stagecheck fuzz (seed 42, indexes 2344 and 7536): a return inside a loop guards the rest of the function with `if not do_return:`, which moves a later finally into a nested function; that finally holds a def and reads a maybe-unbound local: refused (it cannot be converted faithfully on RustPython)

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

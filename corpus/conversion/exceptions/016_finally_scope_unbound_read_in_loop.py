# id: conv-exceptions-016
# construct: exceptions
# modes: original,unstaged
# expect: agree
# about: found by stagecheck fuzz (seed 42, index 2344 and four more): a finally holding a def, inside a loop, reads a maybe-unbound local; a function with such a finally keeps its statements and gets no lambdas (RustPython compiles a finally twice and nested scopes in it shift the ones after), so the read raises UnboundLocalError as in the original

def f(p):
    for i in [1, 2]:
        try:
            n = i
        finally:
            v = p
            del v
            try:
                print('v', v)
            except NameError as e:
                print('unbound', type(e).__name__, e)

                def later():
                    return n
    return p


print(f(3))

# id: conv-exceptions-016
# construct: exceptions
# modes: original,unstaged
# expect: refused
# reason: ConversionError: a finally block holding a def, lambda or comprehension, inside converted control flow, reads a local that may be unbound
# about: found by stagecheck fuzz (seed 42, index 2344 and four more): such a finally stays as written (RustPython cannot compile it converted), but inside a loop it moves into a nested function, where its read would raise NameError instead of UnboundLocalError: refused

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

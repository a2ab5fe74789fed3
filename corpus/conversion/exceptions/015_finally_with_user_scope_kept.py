# id: conv-exceptions-015
# construct: exceptions
# modes: original,unstaged
# expect: agree
# about: found by stagecheck fuzz (plain family, seed 1 index 408): a finally block that holds a def of the user's was left as written (RustPython could not compile the functions conversion adds there; converted since issue 16), and a loop in it still reads its deleted local as the original does: UnboundLocalError, not NameError

def f(p):
    log = []
    try:
        log.append(p)
    finally:
        n = 0
        while n < 2:
            n += 1
            v = 7
            del v
            try:
                log.append(v)
            except NameError as e:
                log.append(type(e).__name__ + ': ' + str(e))

        def helper(q):
            return q + n
        log.append(helper(1))
    return log


print(f(5))

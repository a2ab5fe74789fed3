# id: conv-while-013
# construct: while
# modes: original,unstaged,staged
# expect: agree
# about: a walrus in the test of a while loop whose body returns or breaks binds in the function, not in a lambda (fuzz finding, fixed in transformer/src/passes/control_flow.rs)
# origin: a generated plain program (issue 17 generator work), reduced by hand, 2026-11-25
# status: fixed

def first_big(items):
    i = 0
    while (v := items[i] if i < len(items) else None) is not None:
        i += 1
        if v > 10:
            return v
    return -1


def counter():
    n = 0
    while (n := n + 1) < 5:
        if n == 3:
            break
    return n


print(first_big([1, 20, 3]), first_big([1, 2]), counter())

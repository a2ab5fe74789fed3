# id: conv-scoping-004
# construct: scoping
# modes: original,unstaged
# expect: agree
# about: closures created in a while loop see the variable's value at call time, including after the loop changes it

def f():
    fs = []
    n = 0
    while n < 3:
        fs.append(lambda: n)
        n += 1
    first = [g() for g in fs]
    n = 'changed'
    second = [g() for g in fs]
    return first, second


print(f())

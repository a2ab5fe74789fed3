# id: conv-ternary-007
# construct: ternary
# modes: original,unstaged
# expect: agree
# about: conditional expressions inside f-strings, in a loop, and as dict values

def describe(n):
    return f"{n} is {'even' if n % 2 == 0 else 'odd'}{'!' if n > 3 else ''}"


def f(xs):
    lines = []
    for x in xs:
        lines.append(describe(x))
    flags = {x: ('hi' if x > 2 else 'lo') for x in xs}
    return lines, flags


print(f([1, 2, 4, 5]))

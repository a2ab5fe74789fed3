# id: conv-for-012
# construct: for
# modes: original,unstaged
# expect: agree
# about: the loop variable leaks to the function scope after the loop and keeps the last value, even after break

def after(xs):
    for x in xs:
        if x > 2:
            break
    return x


def shadow():
    x = 'outer'
    for x in range(3):
        pass
    return x


print(after([1, 2, 3, 4]), after([1, 2]), shadow())

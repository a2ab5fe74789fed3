# id: conv-scoping-002
# construct: scoping
# modes: original,unstaged
# expect: agree
# about: a nonlocal counter updated from a nested function called in a while loop

def make_counter():
    count = 0

    def inc(step):
        nonlocal count
        count += step
        return count

    return inc


def run():
    inc = make_counter()
    i = 0
    seen = []
    while inc(i) < 20:
        seen.append(i)
        i += 1
    return seen, inc(0)


print(run())

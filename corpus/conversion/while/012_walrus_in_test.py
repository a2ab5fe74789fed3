# id: conv-while-012
# construct: while
# modes: original,unstaged
# expect: agree
# about: a walrus assignment in the while test consumes a queue; the bound name is visible in the body and after the loop

def make_source(items):
    items = list(items)

    def nxt():
        v = items.pop(0) if items else None
        print('next ->', v)
        return v

    return nxt


def f(items):
    nxt = make_source(items)
    total = 0
    while (v := nxt()) is not None and v != 'end':
        total += v
    return total, v


print(f([1, 2, 3]))
print(f([5, 'end', 7]))

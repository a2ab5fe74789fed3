# id: conv-unbound-012
# construct: unbound
# modes: original,unstaged
# expect: agree
# about: a name assigned after a conditional break is unbound when the break happens on the first iteration

def f(xs):
    for x in xs:
        if x < 0:
            break
        last_positive = x
    try:
        return last_positive
    except UnboundLocalError as e:
        return type(e).__name__


print(f([1, 2, -3, 4]), f([-1, 2]), f([]))

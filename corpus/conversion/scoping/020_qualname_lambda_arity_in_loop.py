# id: conv-scoping-020
# construct: scoping
# modes: original,unstaged,staged
# expect: agree
# about: a lambda made in a for body, called with an argument too many: the TypeError names it f.<locals>.<lambda>, not by way of loop_body (qualnames skip the converter's scaffolding)
# origin: written by hand for the scaffolding qualname fix, 2026-11-26
# status: fixed

def f(n):
    out = []
    for i in range(n):
        h = lambda: i
        try:
            h(1)
        except TypeError as e:
            out.append(str(e))
    return out


r = f(1)
print(r)

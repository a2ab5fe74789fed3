# id: conv-scoping-027
# construct: scoping
# modes: original,unstaged,staged
# expect: agree
# about: the program's own functions named loop_body and if_body (one declaring global ag__, the converter's mark) stay in qualnames
# origin: written by hand for the scaffolding qualname fix, 2026-11-26
# status: fixed

def f(n):
    def loop_body():
        return lambda: 0

    def if_body():
        global ag__
        return lambda: 1
    for i in range(n):
        x = loop_body()
        if i:
            y = if_body()
    return x.__qualname__, loop_body.__qualname__, y.__qualname__


r = f(2)
print(r)

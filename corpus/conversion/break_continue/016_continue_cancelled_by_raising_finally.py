# id: conv-break_continue-016
# construct: break_continue
# modes: original,unstaged,staged
# expect: agree
# about: a continue whose finally raises is cancelled: the code after the try still runs

def f():
    out = []
    n = 0
    while n < 3:
        n += 1
        try:
            try:
                if n != 2:
                    continue
            finally:
                if n == 1:
                    raise KeyError(n)
        except KeyError as e:
            out.append(('caught', e.args[0]))
        out.append(('after', n))
    return out


print(f())

# id: conv-augassign_del-006
# construct: augassign_del
# modes: original,unstaged
# expect: agree
# about: del of attributes; reading a deleted attribute raises AttributeError

class P:
    def __init__(self):
        self.a = 1
        self.b = 2


def f():
    p = P()
    del p.a
    out = [hasattr(p, 'a'), p.b]
    try:
        del p.a
    except AttributeError as e:
        out.append(type(e).__name__)
    p.a = 'back'
    out.append(p.a)
    return out


print(f())

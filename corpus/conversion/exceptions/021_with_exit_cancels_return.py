# id: conv-exceptions-021
# construct: with
# modes: original,unstaged,staged
# expect: agree
# about: a return or break inside with whose __exit__ raises is cancelled: an outer manager swallowing it, or an except around the with, resumes the function or the loop (fuzz finding, fixed in transformer/src/passes/exits.rs)
# origin: a generated plain program (issue 17 generator work), reduced by hand, 2026-11-25
# status: fixed

class CM:
    def __init__(self, tag, swallow=False, fail=False):
        self.tag = tag
        self.swallow = swallow
        self.fail = fail

    def __enter__(self):
        return self.tag

    def __exit__(self, t, v, tb):
        print('exit', self.tag, t.__name__ if t else None)
        if self.fail:
            raise KeyError(self.tag)
        return self.swallow


def swallowed():
    with CM(1, swallow=True), CM(2, fail=True):
        return 'returned'
    return 'after with'


def caught():
    try:
        with CM(3, fail=True):
            return 'returned'
    except KeyError as e:
        print('caught', e)
    return 'after try'


def loop():
    out = []
    for i in range(3):
        try:
            with CM(i, fail=i == 0):
                out.append(i)
                break
        except KeyError:
            out.append('cancelled')
    return out


print(swallowed(), caught(), loop())

# id: conv-exceptions-022
# construct: with
# modes: original,unstaged,staged
# expect: agree
# about: a with whose __exit__ returns a false value re-raises; once an except has handled it, a later exception has no __context__ (RustPython's RERAISE popped its handler's values and left the exception current: found by fuzz --oracle cpython, fixed in the vendored VM, executor/vendor/rustpython-vm/PATCHES.md)
# origin: fuzz --oracle cpython --seed 103 (a raise ... from chain after a with in a generator), reduced by hand, 2026-11-25
# status: fixed

class CM:
    def __init__(self, swallow):
        self.swallow = swallow

    def __enter__(self):
        return self

    def __exit__(self, t, v, tb):
        return t is not None and issubclass(t, self.swallow)


def context():
    try:
        raise KeyError(1)
    except KeyError as e:
        return type(e.__context__).__name__


def f(n):
    seen = []
    for i in range(n):
        try:
            with CM(KeyError):
                if i % 2:
                    raise ZeroDivisionError(i)
        except ZeroDivisionError:
            seen.append(i)
        seen.append(context())
    with CM(ZeroDivisionError):
        with CM(KeyError):
            raise ZeroDivisionError('z')
    seen.append(context())
    return seen


result = f(4)
print(result, context())

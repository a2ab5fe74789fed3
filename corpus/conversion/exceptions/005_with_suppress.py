# id: conv-exceptions-005
# construct: exceptions
# modes: original,unstaged
# expect: agree
# about: a context manager class that prints in __enter__/__exit__ and suppresses selected exceptions

class Suppress:
    def __init__(self, *types):
        self.types = types

    def __enter__(self):
        print('enter')
        return self

    def __exit__(self, et, ev, tb):
        name = et.__name__ if et else None
        print('exit', name, ev)
        return et is not None and issubclass(et, self.types)


def f(divisor, key):
    out = []
    with Suppress(ZeroDivisionError, KeyError) as s:
        out.append(10 // divisor)
        out.append({'k': 1}[key])
        out.append('end of body')
    out.append('after with')
    return out


print(f(2, 'k'))
print(f(0, 'k'))
print(f(1, 'q'))


def main():
    try:
        f('x', 'k')
    except TypeError as e:
        print('not suppressed:', type(e).__name__)


main()

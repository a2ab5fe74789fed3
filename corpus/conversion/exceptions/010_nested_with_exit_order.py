# id: conv-exceptions-010
# construct: exceptions
# modes: original,unstaged
# expect: agree
# about: nested with statements exit in reverse order; an inner __exit__ suppresses, the outer sees nothing

class CM:
    def __init__(self, name, suppress):
        self.name = name
        self.suppress = suppress

    def __enter__(self):
        print('enter', self.name)
        return self.name

    def __exit__(self, et, ev, tb):
        print('exit', self.name, et.__name__ if et else None)
        return self.suppress


def f():
    with CM('outer', False) as a, CM('middle', False) as b:
        with CM('inner', True):
            print('body', a, b)
            raise RuntimeError('boom')
        print('after inner with')
    return 'done'


print(f())

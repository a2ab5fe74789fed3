# id: conv-return-014
# construct: return
# modes: original,unstaged
# expect: agree
# about: return from inside with inside try/except; __exit__ sees no exception, and a later raise is caught

class CM:
    def __enter__(self):
        print('enter')
        return 'res'

    def __exit__(self, et, ev, tb):
        print('exit with', et.__name__ if et else 'no exception')
        return False


def f(mode):
    try:
        with CM() as r:
            if mode == 'return':
                return r + '!'
            if mode == 'raise':
                raise KeyError(mode)
            print('body done')
    except KeyError as e:
        return 'caught ' + str(e)
    return 'normal'


def main():
    for m in ('return', 'raise', 'none'):
        print(f(m))


main()

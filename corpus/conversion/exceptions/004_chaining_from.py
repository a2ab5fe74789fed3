# id: conv-exceptions-004
# construct: exceptions
# modes: original,unstaged
# expect: agree
# about: raise ... from sets __cause__ and suppresses context; raise ... from None hides both

class AppError(Exception):
    pass


def load(s):
    try:
        return int(s)
    except ValueError as e:
        raise AppError('cannot load %r' % s) from e


def load_quiet(s):
    try:
        return int(s)
    except ValueError:
        raise AppError('quiet') from None


def run():
    out = []
    for fn in (load, load_quiet):
        try:
            fn('x')
        except AppError as e:
            out.append((str(e), type(e.__cause__).__name__, e.__suppress_context__))
    return out


print(run())

# id: conv-for-013
# construct: for
# modes: original,unstaged
# expect: agree
# about: an iterator that raises after two items; body effects before the error are kept

class Flaky:
    def __init__(self):
        self.i = 0

    def __iter__(self):
        return self

    def __next__(self):
        self.i += 1
        if self.i > 2:
            raise ZeroDivisionError('flaky at ' + str(self.i))
        return self.i


def run():
    got = []
    try:
        for v in Flaky():
            got.append(v)
            print('body', v)
    except ZeroDivisionError as e:
        print(type(e).__name__, e)
    return got


print(run())

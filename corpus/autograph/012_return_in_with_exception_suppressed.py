# id: autograph-012
# construct: with_return_suppressed
# modes: original,unstaged
# expect: diverged
# reason: open: global r differs in unstaged
# target: autograph
# version: TensorFlow 2.21.0
# about: a return inside a `with` whose inner __exit__ raises and whose outer __exit__ suppresses that exception: Python carries on after the with (the return is cancelled); converted, the function still returns the value of the cancelled return
# origin: fuzz --target autograph --seed 2101 (30 min, 2 jobs): reports/2026-11-26T04-58-12Z-autograph/findings/stdout-unstaged-b3ef7e19, -71fbe226 (reduced: `with a(), a(fail=1): return 0` then `print('not returned')`), written small by hand
# status: open
# tf-issue: not found (searched tensorflow/tensorflow issues: autograph return inside with statement context manager; __exit__ suppresses exception return)

class Swallow:
    def __enter__(self):
        return self

    def __exit__(self, t, v, tb):
        return True


class Fail:
    def __enter__(self):
        return self

    def __exit__(self, t, v, tb):
        raise ValueError('exit')


def f():
    with Swallow(), Fail():
        return 'returned'
    return 'after the with'


r = f()

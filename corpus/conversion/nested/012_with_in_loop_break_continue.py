# id: conv-nested-012
# construct: nested
# modes: original,unstaged
# expect: agree
# about: with statements inside loops: break and continue inside the with body still run __exit__

class CM:
    def __init__(self, log, i):
        self.log = log
        self.i = i

    def __enter__(self):
        self.log.append('enter%d' % self.i)

    def __exit__(self, *exc):
        self.log.append('exit%d' % self.i)


def f():
    log = []
    for i in range(5):
        with CM(log, i):
            if i == 1:
                continue
            if i == 3:
                break
            log.append('body%d' % i)
    return log


print(f())

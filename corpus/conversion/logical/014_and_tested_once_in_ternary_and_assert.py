# id: conv-logical-014
# construct: logical
# modes: original,unstaged
# expect: agree
# about: a ternary's and an assert's test are test contexts too: `(q and c)` with q false calls q.__bool__ once, as Python's jump does (passes 4 and 9 turn them into calls before pass 10 marks test contexts; found by the generator's counting __bool__, issue 18)

log = []


class Q:
    def __init__(self, v):
        self.v = v

    def __bool__(self):
        log.append(self.v)
        return self.v


def f(q, c):
    r = 1 if (q and c) else 2
    s = 3 if not (q and c) else 4
    assert (q or c) and (c or q), 'never'
    while q and c:
        break
    return r, s


print(f(Q(False), Q(True)), log)

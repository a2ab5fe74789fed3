# id: conv-scoping-017
# construct: scoping
# modes: original,unstaged
# expect: agree
# about: a class body containing if and for statements (class scope is not a function scope), with methods using the results

class Table:
    kind = 'squares'
    if kind == 'squares':
        values = []
        for i in range(4):
            values.append(i * i)
        del i
    else:
        values = None
    total = 0
    for v in values:
        if v % 2:
            continue
        total += v

    def lookup(self, k):
        if k < len(self.values):
            return self.values[k]
        return self.total


def run():
    t = Table()
    return t.lookup(2), t.lookup(10), Table.values, hasattr(Table, 'i'), Table.v


print(run())

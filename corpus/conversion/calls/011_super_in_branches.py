# id: conv-calls-011
# construct: calls
# modes: original,unstaged
# expect: agree
# about: zero-argument super() called inside if branches and loops of methods (needs the __class__ cell and self)

class Base:
    def greet(self, n):
        return 'base%d' % n

    def total(self, xs):
        return sum(xs)


class Child(Base):
    def greet(self, n):
        if n > 1:
            r = super().greet(n) + '+child'
        else:
            r = 'child only'
        return r

    def total(self, xs):
        acc = []
        for i in range(len(xs)):
            acc.append(super().total(xs[:i + 1]))
        while len(acc) > 2:
            acc.pop(0)
        return acc


def run():
    c = Child()
    return c.greet(1), c.greet(3), c.total([1, 2, 3, 4])


print(run())

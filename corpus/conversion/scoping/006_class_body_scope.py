# id: conv-scoping-006
# construct: scoping
# modes: original,unstaged
# expect: agree
# about: class bodies do not form an enclosing scope for methods; class attributes via self or the class name

x = 'global x'


class C:
    x = 'class x'
    y = x + '!'
    doubled = [x * 2 for x in range(3)]

    def get(self):
        return x

    def get_attr(self):
        return self.x, C.y

    def set_instance(self, v):
        self.x = v
        return self.x, C.x


def f():
    c = C()
    return c.get(), c.get_attr(), c.set_instance('inst'), C.doubled


print(f())

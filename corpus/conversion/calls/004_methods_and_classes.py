# id: conv-calls-004
# construct: calls
# modes: original,unstaged
# expect: agree
# about: instance methods, class methods, static methods, properties and inheritance with super()

class Shape:
    count = 0

    def __init__(self, name):
        self.name = name
        Shape.count += 1

    def area(self):
        return 0

    def describe(self):
        return '%s area=%s' % (self.name, self.area())

    @classmethod
    def made(cls):
        return cls.count

    @staticmethod
    def unit():
        return 'cm'


class Rect(Shape):
    def __init__(self, w, h):
        super().__init__('rect')
        self.w, self.h = w, h

    def area(self):
        return self.w * self.h

    @property
    def square(self):
        return self.w == self.h


class Sq(Rect):
    def __init__(self, s):
        super().__init__(s, s)
        self.name = 'square'


def f():
    shapes = [Shape('dot'), Rect(2, 3), Sq(4)]
    for s in shapes:
        print(s.describe(), getattr(s, 'square', None))
    return Shape.made(), Sq.unit(), isinstance(shapes[2], Rect)


print(f())

# id: conv-if-011
# construct: if
# modes: original,unstaged
# expect: agree
# about: attribute and item mutation only in the taken branch must not leak into the other

class Box:
    pass


def setup(flag):
    b = Box()
    d = {}
    if flag:
        b.x = 1
        d['k'] = 'then'
    else:
        d['j'] = 'else'
    return hasattr(b, 'x'), sorted(d.items())


print(setup(True))
print(setup(False))

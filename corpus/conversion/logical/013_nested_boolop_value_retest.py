# id: conv-logical-013
# construct: logical
# modes: original,unstaged
# expect: diverged
# reason: accepted: in `(f and t) or t` used as a value, Python knows the short-circuited `f` is false and does not test it again; ag__.and_ returns the value and ag__.or_ tests it a second time. Only a __bool__ with side effects can tell.
# about: known deviation: a short-circuited operand of a nested and/or in value context is truth-tested twice

class B:
    def __init__(self, name, v):
        self.name, self.v = name, v

    def __bool__(self):
        print('bool', self.name)
        return self.v


def nested():
    f, t = B('f', False), B('t', True)
    w = f and t or t
    return w.name


print(nested())

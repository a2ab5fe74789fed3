# id: conv-scoping-011
# construct: scoping
# modes: original,unstaged
# expect: agree
# about: nonlocal reaches the nearest enclosing binding across two levels of nesting; global bypasses them

level = 'global'


def outer():
    level = 'outer'
    trace = []

    def middle():
        def inner():
            nonlocal level
            trace.append(level)
            level = 'set by inner'

        def global_setter():
            global level
            level = 'global set by global_setter'

        for _ in range(2):
            inner()
        global_setter()

    middle()
    return level, trace


print(outer())
print(level)

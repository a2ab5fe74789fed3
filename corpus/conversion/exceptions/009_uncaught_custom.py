# id: conv-exceptions-009
# construct: exceptions
# modes: original,unstaged
# expect: agree
# about: a custom exception raised in a nested loop propagates through finally blocks that print, ending the program

class Overflow(Exception):
    pass


def fill(cap, items):
    load = 0
    for group in items:
        try:
            for w in group:
                load += w
                if load > cap:
                    raise Overflow('load %d exceeds %d' % (load, cap))
        finally:
            print('group done, load', load)
    return load


print(fill(10, [[1, 2], [3]]))
print(fill(10, [[4, 4], [4, 4]]))

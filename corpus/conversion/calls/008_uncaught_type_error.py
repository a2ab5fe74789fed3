# id: conv-calls-008
# construct: calls
# modes: original,unstaged
# expect: agree
# about: a call with a wrong argument count deep inside a loop ends the program with TypeError

def area(w, h):
    return w * h


def total(shapes):
    s = 0
    for sh in shapes:
        print('shape', sh)
        s += area(*sh)
    return s


print(total([(1, 2), (3, 4)]))
print(total([(1, 2), (3,), (5, 6)]))

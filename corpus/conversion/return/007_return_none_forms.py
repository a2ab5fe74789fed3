# id: conv-return-007
# construct: return
# modes: original,unstaged
# expect: agree
# about: bare return, return None and falling off the end all give None; code after return is dead

def a(x):
    if x:
        return
    print('a fell through')


def b(x):
    while True:
        if x > 0:
            return None
        x += 1
        print('b loop', x)


def c():
    pass


print(a(1), a(0), b(-2), c())

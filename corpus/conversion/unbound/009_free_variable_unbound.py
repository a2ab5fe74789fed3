# id: conv-unbound-009
# construct: unbound
# modes: original,unstaged
# expect: agree
# about: a closure reads a variable of the enclosing function that is not yet assigned when the closure is called

def outer(early):
    def inner():
        return value * 2

    if early:
        try:
            return inner()
        except NameError as e:
            return type(e).__name__ + ': ' + str(e)
    value = 21
    return inner()


print(outer(True))
print(outer(False))

# id: conv-if-009
# construct: if
# modes: original,unstaged
# expect: agree
# about: return in both branches versus fallthrough after if without else

def sign(x):
    if x > 0:
        return 1
    elif x < 0:
        return -1
    print('zero reached for', x)
    return 0


def only_then(x):
    if x:
        return 'yes'


print(sign(5), sign(-2), sign(0))
print(only_then(1), only_then(0))

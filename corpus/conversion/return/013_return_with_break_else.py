# id: conv-return-013
# construct: return
# modes: original,unstaged
# expect: agree
# about: for/else where the body returns and the else returns; break skips else and falls to the code after

def f(xs):
    for x in xs:
        if x == 0:
            break
        if x < 0:
            return 'negative', x
    else:
        return 'all positive'
    return 'zero found'


print(f([1, 2]), f([1, 0, -1]), f([1, -1, 0]), f([]))

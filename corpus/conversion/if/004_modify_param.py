# id: conv-if-004
# construct: if
# modes: original,unstaged
# expect: agree
# about: if without else that rebinds a parameter only sometimes

def clamp(x, lo, hi):
    if x < lo:
        x = lo
    if x > hi:
        x = hi
    return x


vals = [clamp(v, 0, 10) for v in (-5, 3, 15, 10)]
print(vals)

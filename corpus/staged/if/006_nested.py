# id: staged-if-006
# construct: if
# modes: original,unstaged,staged
# expect: agree
# about: a staged if inside a staged if, the inner one capturing outer values

import stagecheck as sc

@sc.function
def f(a, b):
    r = a
    if a > 0:
        if b > 0:
            r = a + b
        else:
            r = a - b
    else:
        r = b * 3
    return r

for a, b in [(1, 2), (1, -2), (-1, 2)]:
    print(f(sc.constant(a), sc.constant(b)))

# id: staged-if-011
# construct: if
# modes: original,unstaged,staged
# expect: agree
# about: nested staged conditional expressions

import stagecheck as sc

@sc.function
def bucket(x):
    return sc.constant(0) if x < 0 else (sc.constant(1) if x < 10 else sc.constant(2))

print([int(bucket(sc.constant(v))) for v in (-4, 0, 9, 10, 77)])

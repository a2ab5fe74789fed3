# id: staged-if-002
# construct: if
# modes: original,unstaged,staged
# expect: agree
# about: a staged if/elif/else chain: nested cond nodes

import stagecheck as sc

@sc.function
def classify(x):
    if x < 0:
        r = sc.constant(-1)
    elif x == 0:
        r = sc.constant(0)
    elif x < 10:
        r = sc.constant(1)
    else:
        r = sc.constant(2)
    return r

for v in [-5, 0, 3, 10, 99]:
    print(classify(sc.constant(v)))

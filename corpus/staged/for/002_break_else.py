# id: staged-for-002
# construct: for
# modes: original,unstaged,staged
# expect: agree
# about: for-else over a tensor with a staged break: the else runs only when no break happened

import stagecheck as sc

@sc.function
def find(xs, target):
    pos = sc.constant(-1)
    i = sc.constant(0)
    for x in xs:
        if x == target:
            pos = i
            break
        i = i + 1
    else:
        pos = sc.constant(-2)
    return pos

xs = sc.constant([4, 8, 15, 16, 23, 42])
print(find(xs, sc.constant(15)), find(xs, sc.constant(7)), find(xs, sc.constant(42)))

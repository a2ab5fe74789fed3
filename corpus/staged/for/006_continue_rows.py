# id: staged-for-006
# construct: for
# modes: original,unstaged,staged
# expect: agree
# about: continue in a staged for over matrix rows

import stagecheck as sc

@sc.function
def positive_rows(m):
    total = sc.zeros((2,), sc.int32)
    for row in m:
        if sc.reduce_sum(row) < 0:
            continue
        total = total + row
    return total

print(positive_rows(sc.constant([[1, 2], [-5, 1], [3, 3], [0, -1]])))

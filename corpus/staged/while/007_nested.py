# id: staged-while-007
# construct: while
# modes: original,unstaged,staged
# expect: agree
# about: nested staged whiles

import stagecheck as sc

@sc.function
def table(n):
    total = sc.constant(0)
    i = sc.constant(0)
    while i < n:
        j = sc.constant(0)
        while j < i:
            total = total + i * j
            j = j + 1
        i = i + 1
    return total

print(table(sc.constant(6)), table(sc.constant(1)))

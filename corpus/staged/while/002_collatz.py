# id: staged-while-002
# construct: while
# modes: original,unstaged,staged
# expect: agree
# about: a staged while whose body has a staged if

import stagecheck as sc

@sc.function
def steps(n):
    count = sc.constant(0)
    while n != 1:
        if n % 2 == 0:
            n = n // 2
        else:
            n = 3 * n + 1
        count = count + 1
    return count

print(steps(sc.constant(27)), steps(sc.constant(1)), steps(sc.constant(6)))

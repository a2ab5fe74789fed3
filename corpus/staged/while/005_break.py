# id: staged-while-005
# construct: while
# modes: original,unstaged,staged
# expect: agree
# about: break in a staged while

import stagecheck as sc

@sc.function
def first_square_over(limit):
    n = sc.constant(1)
    while n < 1000:
        if n * n > limit:
            break
        n = n + 1
    return n

print(first_square_over(sc.constant(50)), first_square_over(sc.constant(0)), first_square_over(sc.constant(10**7)))

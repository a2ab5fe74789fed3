# id: staged-lists-004
# construct: lists
# modes: original,unstaged,staged
# expect: agree
# about: a list appended in a staged while loop whose trip count depends on the value (a Collatz path), appended once more after the loop and stacked: one trace, two calls of different lengths

import stagecheck as sc

@sc.function
def collatz_path(n):
    path = []
    while n != 1:
        path.append(n)
        n = sc.where(n % 2 == 0, n // 2, 3 * n + 1)
    path.append(n)
    return sc.stack(path)

print(collatz_path(sc.constant(6)))
print(collatz_path(sc.constant(7)))
print(collatz_path(sc.constant(1)))

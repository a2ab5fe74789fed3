# id: conv-scoping-015
# construct: scoping
# modes: original,unstaged
# expect: agree
# about: plain recursion 950 levels deep, just under the default limit of 1000 frames; a converter that adds frames per level may hit RecursionError

def count_down(n):
    if n == 0:
        return 0
    return 1 + count_down(n - 1)


print(count_down(950))

# id: conv-scoping-015
# construct: scoping
# modes: original,unstaged
# expect: diverged
# reason: accepted: converted code runs each loop body and branch in a nested function, so a call uses several frames and recursion 950 deep reaches the recursion limit (AutoGraph shares this)
# about: plain recursion 950 levels deep, just under the default limit of 1000 frames; a converter that adds frames per level may hit RecursionError

def count_down(n):
    if n == 0:
        return 0
    return 1 + count_down(n - 1)


print(count_down(950))

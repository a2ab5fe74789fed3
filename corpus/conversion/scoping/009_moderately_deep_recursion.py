# id: conv-scoping-009
# construct: scoping
# modes: original,unstaged
# expect: agree
# about: recursion about 120 levels deep through if and for bodies (far enough from the limit to tolerate a few extra frames per level)

def depth_sum(n):
    if n == 0:
        return 0
    else:
        total = 0
        for k in (n,):
            total = k + depth_sum(k - 1)
        return total


def chain(n):
    return [] if n == 0 else [n] + chain(n - 1)


print(depth_sum(120))
print(len(chain(120)), chain(5))

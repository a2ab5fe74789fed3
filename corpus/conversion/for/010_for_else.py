# id: conv-for-010
# construct: for
# modes: original,unstaged
# expect: agree
# about: for/else: else runs on normal exhaustion (also for an empty iterable) and is skipped after break

def find(xs, target):
    for i, x in enumerate(xs):
        if x == target:
            print('found at', i)
            break
    else:
        print('not found')
        i = -1
    return i


print(find([5, 6, 7], 6))
print(find([5, 6, 7], 9))
print(find([], 1))

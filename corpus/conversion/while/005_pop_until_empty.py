# id: conv-while-005
# construct: while
# modes: original,unstaged
# expect: agree
# about: while over a shrinking list (list truthiness as the test), mutating another list

def drain(stack):
    seen = []
    while stack:
        top = stack.pop()
        if isinstance(top, list):
            stack.extend(top)
        else:
            seen.append(top)
    return seen


data = [1, [2, 3, [4]], 5, [[6]]]
print(drain(data))
print(data)

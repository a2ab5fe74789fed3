# id: staged-lists-008
# construct: lists
# modes: original,unstaged,staged
# expect: agree
# about: a list filled in one staged loop and popped in another as many times as a run-time count says: within its length it sums the last elements; past it the graph raises what Python raises, IndexError: pop from empty list

import stagecheck as sc

@sc.function
def drain(xs, n):
    stack = []
    for x in xs:
        stack.append(x)
    total = sc.constant(0.0)
    i = sc.constant(0)
    while i < n:
        total = total + stack.pop()
        i = i + 1
    return total

print(drain(sc.constant([1.0, 2.0, 3.0]), sc.constant(2)))
print(drain(sc.constant([1.0, 2.0, 3.0]), sc.constant(5)))

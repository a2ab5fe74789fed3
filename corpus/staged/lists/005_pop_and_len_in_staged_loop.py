# id: staged-lists-005
# construct: lists
# modes: original,unstaged,staged
# expect: agree
# about: a reverse-Polish evaluator: a list used as a stack in a staged loop, pushed under one branch of a staged if and popped twice under the other, len(l) as a tensor (the deepest stack), the result popped after the loop

import stagecheck as sc

ADD, MUL = -1, -2

@sc.function
def rpn(tokens):
    stack = []
    depth = sc.constant(0)
    for tok in tokens:
        if tok >= 0:
            stack.append(sc.cast(tok, sc.float32))
        else:
            b = stack.pop()
            a = stack.pop()
            stack.append(sc.where(tok == ADD, a + b, a * b))
        depth = sc.maximum(depth, len(stack))
    return stack.pop(), depth

print(rpn(sc.constant([3, 4, ADD, 5, MUL])))
print(rpn(sc.constant([2, 3, 4, MUL, ADD, 6, MUL])))

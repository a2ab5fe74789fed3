# id: staged-lists-002
# construct: lists
# modes: original,unstaged,staged
# expect: agree
# about: a list grown in a staged for loop and stacked after it (issue 19, item 2): the append is a list_push of the loop's list variable, sc.stack a list_stack; eager and unstaged keep a Python list

import stagecheck as sc

@sc.function
def running_sums(xs):
    outputs = []
    total = sc.constant(0.0)
    for x in xs:
        total = total + x
        outputs.append(total)
    return sc.stack(outputs)

print(running_sums(sc.constant([1.0, 2.0, 3.0])))
print(running_sums(sc.constant([0.5, -1.5, 2.0])))

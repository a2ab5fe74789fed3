# id: staged-lists-002
# construct: lists
# modes: original,unstaged,staged
# expect: refused
# reason: StagingError: list.append inside staged control flow mutates a Python object once when traced
# about: AutoGraph's list idiom (seed 001, dynamic_rnn: outputs.append in a staged for loop, then stack): a list grown in a staged loop is not lowered to list ops yet (issue 19, item 2); refused at the append's line

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

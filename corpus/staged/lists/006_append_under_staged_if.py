# id: staged-lists-006
# construct: lists
# modes: original,unstaged,staged
# expect: agree
# about: a list appended under a staged if inside a staged loop: the cond's branches both give the list back (one pushed); an empty result stacks to the same ValueError as sc.stack([]) eagerly

import stagecheck as sc

@sc.function
def doubled_positives(xs):
    out = []
    for x in xs:
        if x > 0:
            out.append(x * 2.0)
    return sc.stack(out)

print(doubled_positives(sc.constant([1.0, -2.0, 3.0, -4.0, 5.0])))
try:
    doubled_positives(sc.constant([-1.0, -2.0]))
except ValueError as e:
    print('ValueError:', e)

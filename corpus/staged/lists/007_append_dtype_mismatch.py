# id: staged-lists-007
# construct: lists
# modes: original,unstaged,staged
# expect: refused
# reason: StagingError: list 'out' holds float32 () tensors in staged control flow (the dtype and shape of its first element); appending int32 ()
# about: a list in a staged loop holds one dtype and shape (fixed by its first element when traced): appending an int32 tensor to a list of float32 ones is refused at the append's line (the original fails later, stacking them)

import stagecheck as sc

@sc.function
def mixed(xs):
    out = []
    for x in xs:
        out.append(x)
        out.append(sc.cast(x, sc.int32))
    return sc.stack(out)

print(mixed(sc.constant([1.5, 2.5])))

# id: staged-print-004
# construct: print
# modes: original,unstaged,staged
# expect: agree
# about: print of a list and a tuple of tensors, of Python values computed while tracing and of a float tensor, in a staged for loop

import stagecheck as sc

@sc.function
def show(xs, scale):
    total = sc.constant(0.0)
    for x in xs:
        total = total + x * scale
        print([x, total], (1, 'a'), scale, sep=' | ')
    sc.print('total', total)
    return total

show(sc.constant([0.5, 1.5, 2.0]), 2.0)
show(sc.constant([1.0, 1.0]), 3.0)

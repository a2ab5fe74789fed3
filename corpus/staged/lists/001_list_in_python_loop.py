# id: staged-lists-001
# construct: lists
# modes: original,unstaged,staged
# expect: agree
# about: a list built by a Python loop over a hyper-parameter inside a staged function (unrolled while tracing) and stacked: one stack node of the traced tensors

import stagecheck as sc

@sc.function
def powers(x, n):
    outs = []
    for k in range(n):
        outs.append(x ** k)
    outs.pop()
    print(len(outs), 'powers')
    return sc.stack(outs)

print(powers(sc.constant([1.0, 2.0]), 4))
print(powers(sc.constant([3.0, 0.5]), 3))

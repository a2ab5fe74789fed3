# id: staged-variables-001
# construct: variables
# modes: original,unstaged,staged
# expect: agree
# about: Variables updated in a staged for loop over several calls: captured by reference, so a new value is no retrace (run --mode staged --show-graph: one trace, no retraces), assignments inside the loop seen after the call and by the next call, and an assignment between calls seen too

import stagecheck as sc

total = sc.Variable(0.0)
steps = sc.Variable(0)

@sc.function
def accumulate(xs):
    for x in xs:
        total.assign_add(x)
        steps.assign_add(1)
    return total / sc.cast(steps.read_value(), sc.float32)

print(accumulate(sc.constant([1.0, 2.0, 3.0])))
print(accumulate(sc.constant([4.0, 5.0, 6.0])))
total.assign(10.0)
print(accumulate(sc.constant([0.5, 0.5, 0.5])))
print(total, steps)
print(total.numpy(), steps.numpy())

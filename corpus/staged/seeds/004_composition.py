# id: staged-seeds-004
# construct: seeds
# modes: original,unstaged,staged
# expect: agree
# about: TF Eager listing 8: outer calls inner; inner's graph is a call node in outer's

import stagecheck as sc

@sc.function
def inner(a):
    return sc.nn.relu(a)

@sc.function
def outer(a, b):
    return inner(sc.matmul(a, b))

d = sc.constant([[-1.0, 0.0, 0.0], [0.0, 1.0, 0.0], [0.0, 0.0, 2.0]])
print(outer(sc.eye(3), d))
print(inner(sc.constant([-3, 4])))

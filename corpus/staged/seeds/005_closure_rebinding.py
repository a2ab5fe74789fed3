# id: staged-seeds-005
# construct: seeds
# modes: original,unstaged,staged
# expect: agree
# about: TF Eager listing 7, with a rebound global instead of a Variable: the captured tensor is read at every call

import stagecheck as sc

v = sc.constant(0.0)

@sc.function
def bump(x):
    return x + v

print(bump(sc.constant(1.0)))
v = v + 1.0
print(bump(sc.constant(1.0)))
v = sc.constant(10.0)
print(bump(sc.constant(1.0)))

# id: staged-seeds-006
# construct: seeds
# modes: original,unstaged,staged
# expect: agree
# about: a staged function closing over a tensor in an enclosing function's cell: read at every call

import stagecheck as sc

def make():
    scale = sc.constant(2)
    @sc.function
    def f(x):
        return x * scale
    def set_scale(s):
        nonlocal scale
        scale = s
    return f, set_scale

f, set_scale = make()
print(f(sc.constant([1, 2])))
set_scale(sc.constant(5))
print(f(sc.constant([1, 2])))

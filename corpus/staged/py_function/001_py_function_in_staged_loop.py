# id: staged-py_function-001
# construct: py_function
# modes: original,unstaged,staged
# expect: agree
# about: sc.py_function in a staged while loop: the Python function runs at every iteration of every call, on eager tensors, its side effects (a list it appends to) seen by the program

import stagecheck as sc

calls = []

def clip(t):
    calls.append(t.numpy())
    return sc.constant([min(v, 2.0) for v in t.numpy()])

@sc.function
def f(x):
    y = x
    i = sc.constant(0)
    while i < 3:
        y = sc.py_function(clip, [y * 2.0], sc.float32)
        i = i + 1
    return y

print(f(sc.constant([0.25, 1.0])))
print(f(sc.constant([0.125, 0.0])))
print(calls)

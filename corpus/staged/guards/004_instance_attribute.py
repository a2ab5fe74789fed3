# id: staged-guards-004
# construct: guards
# modes: original,unstaged,staged
# expect: agree
# about: attributes of an instance read by a staged function, one set later on the instance over the class's: each change retraces

import stagecheck as sc
class Layer:
    bias = 1

    def __init__(self, k):
        self.k = k


layer = Layer(3)


@sc.function
def f(x):
    return x * layer.k + layer.bias


x = sc.constant([1, 2])
print(f(x))
layer.k = 4
print(f(x))
layer.bias = 10
print(f(x))

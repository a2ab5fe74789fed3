# id: staged-composition-003
# construct: composition
# modes: original,unstaged,staged
# expect: agree
# about: sc.function on a method: self is a Python value of the trace key

import stagecheck as sc

class Layer:
    def __init__(self, w):
        self.w = w

    @sc.function
    def __call__(self, x):
        return sc.nn.relu(sc.matmul(x, self.w))

layer = Layer(sc.constant([[1.0, -1.0], [0.5, 2.0]]))
print(layer(sc.constant([[1.0, 1.0], [-2.0, 1.0]])))

# id: staged-guards-017
# construct: guards
# modes: original,unstaged,staged
# expect: agree
# about: a staged method reading an attribute of self: the instance is an argument, guarded by identity and attributes

import stagecheck as sc
class Model:
    def __init__(self):
        self.scale = 2

    @sc.function
    def apply(self, x):
        return x * self.scale


m = Model()
x = sc.constant([1, 2])
print(m.apply(x))
m.scale = 3
print(m.apply(x))

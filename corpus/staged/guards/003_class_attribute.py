# id: staged-guards-003
# construct: guards
# modes: original,unstaged,staged
# expect: agree
# about: a class attribute read by a staged function: assigning it retraces

import stagecheck as sc
class Cfg:
    scale = 2.0


@sc.function
def f(x):
    return x * Cfg.scale


x = sc.constant([1.0, 2.0])
print(f(x))
Cfg.scale = 0.5
print(f(x))

# id: staged-guards-006
# construct: guards
# modes: original,unstaged,staged
# expect: agree
# about: an item of a global dict read by a staged function: assigning it retraces

import stagecheck as sc
cfg = {'k': 2, 'on': True}


@sc.function
def f(x):
    if cfg['on']:
        x = x * cfg['k']
    return x


x = sc.constant(3)
print(f(x))
cfg['k'] = 5
print(f(x))
cfg['on'] = False
print(f(x))

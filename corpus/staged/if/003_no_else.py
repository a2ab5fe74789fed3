# id: staged-if-003
# construct: if
# modes: original,unstaged,staged
# expect: agree
# about: a staged if without else: the untouched variable flows through

import stagecheck as sc

@sc.function
def clip(x):
    if x > 5.0:
        x = sc.constant(5.0)
    return x

print(clip(sc.constant(7.5)), clip(sc.constant(2.5)))

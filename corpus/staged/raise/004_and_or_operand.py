# id: staged-raise-004
# construct: raise
# modes: original,unstaged,staged
# expect: agree
# about: the lazy operand of a staged and/or raises (AttributeError, NameError) only where it is evaluated
import stagecheck as sc

class Box:
    pass

@sc.function
def f(x):
    if x > 0 and Box().missing:
        x = x + 1
    if x > -5 or undefined_name:
        x = x * 2
    return x

print(f(sc.constant(-1)))
try:
    f(sc.constant(1))
except AttributeError as e:
    print('caught:', e)
f(sc.constant(-9))

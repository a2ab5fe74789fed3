# id: staged-raise-008
# construct: raise
# modes: original,unstaged,staged
# expect: agree
# about: the raise is in a plain function and in a staged function called from a staged branch (a call node that raises)
import stagecheck as sc

def check(v, what):
    if what == 'neg':
        raise ValueError('negative input')
    return v

@sc.function
def inner(v):
    raise KeyError('inner always raises')

@sc.function
def f(x):
    if x < 0:
        x = check(x, 'neg')
    elif x > 10:
        x = inner(x)
    else:
        x = check(x, 'ok') + 1
    return x

print(f(sc.constant(3)))
try:
    f(sc.constant(-3))
except ValueError as e:
    print('caught:', e)
try:
    f(sc.constant(30))
except KeyError as e:
    print('caught:', e)
print(f(sc.constant(5)))

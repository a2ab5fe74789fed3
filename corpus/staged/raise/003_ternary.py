# id: staged-raise-003
# construct: raise
# modes: original,unstaged,staged
# expect: agree
# about: a ternary whose untaken value raises (an IndexError of a Python list, a KeyError), then taken
import stagecheck as sc

items = [1, 2]
table = {'a': 1}

@sc.function
def f(x):
    y = x + 1 if x > 0 else x + items[5]
    w = table['zz'] if x > 100 else x
    return y + w

print(f(sc.constant(3)))
try:
    f(sc.constant(-3))
except IndexError as e:
    print('caught:', e)
f(sc.constant(300))

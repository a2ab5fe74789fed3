# id: staged-errors-003
# construct: errors
# modes: original,unstaged,staged
# expect: agree
# about: mixing tensor dtypes is refused eagerly and while tracing alike

import stagecheck as sc

@sc.function
def f(a, b):
    return a + b

try:
    f(sc.constant(1), sc.constant(2.0))
except ValueError as e:
    print('error:', e)
print(f(sc.constant(1), sc.constant(2)))

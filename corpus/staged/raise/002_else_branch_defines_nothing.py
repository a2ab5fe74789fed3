# id: staged-raise-002
# construct: raise
# modes: original,unstaged,staged
# expect: agree
# about: a raise in the else branch, which defines nothing: the true branch's values are the cond's; ops before the raise run first (their error wins)
import stagecheck as sc

@sc.function
def f(x, d):
    if x > 0:
        y = x * 2
    else:
        z = 10 // d
        raise IndexError('negative: %d' % 3)
    return y + 1

print(f(sc.constant(4), sc.constant(1)))
try:
    f(sc.constant(-4), sc.constant(0))
except ZeroDivisionError as e:
    print('first the op:', e)
f(sc.constant(-4), sc.constant(1))

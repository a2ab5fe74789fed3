# id: staged-raise-009
# construct: raise
# modes: original,unstaged,staged
# expect: agree
# about: both branches raise, so the path raises past the if: the function raises at every call, whichever branch; the line after is never reached
import stagecheck as sc

@sc.function
def f(x):
    y = x + 1
    if y > 0:
        raise ValueError('positive %d' % 1)
    else:
        raise TypeError('not positive')
    return y

for v in [3, -3]:
    try:
        f(sc.constant(v))
    except (ValueError, TypeError) as e:
        print(type(e).__name__, e)
f(sc.constant(0))

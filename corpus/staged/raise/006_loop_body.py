# id: staged-raise-006
# construct: raise
# modes: original,unstaged,staged
# expect: agree
# about: a raise in a staged loop body raises at the iteration that runs it, after the earlier iterations' ops (a ZeroDivisionError of iteration 3 first); zero iterations raise nothing
import stagecheck as sc

@sc.function
def count(n, limit):
    i = sc.constant(0)
    acc = sc.constant(0)
    while i < n:
        acc = acc + 12 // (3 - i)
        if acc > limit:
            raise OverflowError('acc passed the limit')
        i = i + 1
    return acc

print(count(sc.constant(2), sc.constant(100)))
print(count(sc.constant(0), sc.constant(-1)))
try:
    count(sc.constant(5), sc.constant(100))
except ZeroDivisionError as e:
    print('iteration 3:', e)
count(sc.constant(3), sc.constant(15))

# id: conv-return-010
# construct: return
# modes: original,unstaged
# expect: agree
# about: the return expression is evaluated before finally runs, so later mutation in finally is not seen by an immutable result but is seen by a shared list

def f():
    x = 1
    try:
        return x
    finally:
        x = 2
        print('finally sets x to', x)


def g():
    acc = [1]
    try:
        return acc
    finally:
        acc.append('from finally')


print(f(), g())

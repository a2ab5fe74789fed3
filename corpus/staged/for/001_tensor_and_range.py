# id: staged-for-001
# construct: for
# modes: original,unstaged,staged
# expect: agree
# about: staged for over a tensor (gather per iteration) and over sc.range with run-time bounds (a counter; range errors raised as eagerly), with break and continue lowered to bool tensor flags

import stagecheck as sc

@sc.function
def rows(m):
    total = sc.zeros((3,), sc.int32)
    for row in m:
        total = total + row
    return total

@sc.function
def count(n):
    s = sc.constant(0)
    for i in sc.range(n):
        s = s + i * i
    return s

@sc.function
def until_big(xs, limit):
    acc = sc.constant(0)
    for x in xs:
        if acc > limit:
            break
        acc = acc + x
    return acc

@sc.function
def skip_odd(xs):
    acc = sc.constant(0)
    for x in xs:
        if x % 2 == 1:
            continue
        acc = acc + x
    return acc

@sc.function
def down(n):
    s = sc.constant(0)
    for i in sc.range(n, 0, -2):
        s = s + i
    return s

m = sc.constant([[1, 2, 3], [4, 5, 6]])
print(rows(m), count(sc.constant(5)), count(sc.constant(0)))
xs = sc.constant([5, 1, 7, 2, 9, 4])
print(until_big(xs, sc.constant(6)), until_big(xs, sc.constant(100)), skip_odd(xs))
print(down(sc.constant(9)), down(sc.constant(-1)))

# id: staged-while-010
# construct: while
# modes: original,unstaged,staged
# expect: agree
# about: found by stagecheck fuzz (tensor family, seed 1 index 1873): a break as the last statement of a staged loop; its flag is read only by the loop's extra test, which the converter adds later, so it was left out of the loop state and the staged loop ran on past the break (5.0 instead of 3.0)

import stagecheck as sc


@sc.function
def f(k):
    a = sc.constant(1.0)
    b = sc.constant(3.0)
    n = sc.constant(0)
    while n < k:
        n = n + 1
        a, b = b, a - b
        if n != 2:
            break
    return a


@sc.function
def g(xs):
    total = sc.constant(0)
    for x in xs:
        total = total + x
        if total > 5:
            break
    return total


print(f(3), f(1))
print(g(sc.constant([4, 3, 9])), g(sc.constant([1, 1])))

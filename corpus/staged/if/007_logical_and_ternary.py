# id: staged-if-007
# construct: if
# modes: original,unstaged,staged
# expect: agree
# about: staged ternaries, and/or (cond nodes, lazily), chained comparisons, not in an if test, ~ as a value, and and-ed while tests

import stagecheck as sc

@sc.function
def f(x, y):
    a = x * 2 if x > y else y - x
    b = x > 0 and y > 0
    c = x < 0 or y < 0
    d = 0 < x < 10
    e = ~(x > y)
    if not (x > y):
        e = e & (x < 0)
    g = sc.constant(1) if x > 100 else sc.constant(2)
    if x > 0 and y > 0:
        a = a + 1
    while x < 5 and y > -3:
        x = x + 1
    return a, b, c, d, e, g, x

for x, y in [(1, 2), (5, 3), (-1, 4), (20, 1), (0, 0)]:
    print(f(sc.constant(x), sc.constant(y)))

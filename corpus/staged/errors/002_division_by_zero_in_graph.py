# id: staged-errors-002
# construct: errors
# modes: original,unstaged,staged
# expect: agree
# about: an integer division by zero inside a staged loop is the eager ZeroDivisionError

import stagecheck as sc

@sc.function
def f(n):
    acc = sc.constant(100)
    while n > -3:
        acc = acc + 60 // n
        n = n - 1
    return acc

print(f(sc.constant(-5)))
print(f(sc.constant(3)))

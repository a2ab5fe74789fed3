# id: staged-guards-016
# construct: guards
# modes: original,unstaged,staged
# expect: agree
# about: a staged function whose helper increments a global and appends to a list: its trace fails its own guards, so every call traces again and runs the Python effects as the original does

import stagecheck as sc
n = 0
log = []


def step():
    global n
    n += 1
    log.append(n)
    return n


@sc.function
def f(x):
    return x + step()


x = sc.constant(1)
print(f(x), f(x))
print(n, log)

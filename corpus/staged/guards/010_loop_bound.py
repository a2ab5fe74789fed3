# id: staged-guards-010
# construct: guards
# modes: original,unstaged,staged
# expect: agree
# about: a Python scalar used as a loop bound, read through a helper and an instance attribute: changing it retraces

import stagecheck as sc
class Schedule:
    def __init__(self, n):
        self.n = n


sched = Schedule(2)


def rounds():
    return sched.n


@sc.function
def f(x):
    for _ in range(rounds()):
        x = x * 2
    return x


x = sc.constant(1)
print(f(x))
sched.n = 4
print(f(x))

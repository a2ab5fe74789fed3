# id: staged-py_function-002
# construct: py_function
# modes: original,unstaged,staged
# expect: agree
# about: a py_function in a staged while loop's test runs once per check, as Python evaluates the test: the first evaluation (traced where the loop starts, to choose staging) is the loop's first check, not a dead extra; before the fix the staged run called it once more per execution (found by fuzz seed 501 once the generator wrote py_function, issue 17)

import stagecheck as sc

calls = []


def budget(t):
    calls.append(t.numpy())
    print('checked', t)
    return sc.constant(3) - t


@sc.function
def spend(n):
    i = sc.constant(0)
    while sc.py_function(budget, [i], sc.int32) > n:
        i = i + 1
    return i


print(spend(sc.constant(1)))
print(spend(sc.constant(5)))
print(calls)

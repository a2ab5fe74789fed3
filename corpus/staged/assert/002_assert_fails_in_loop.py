# id: staged-assert-002
# construct: assert
# modes: original,unstaged,staged
# expect: agree
# about: an assert in a staged loop that fails on the third iteration of the second call: AssertionError with its message, after the first call's output and the iterations printed before it

import stagecheck as sc

@sc.function
def check_all(xs):
    n = sc.constant(0)
    for x in xs:
        print('checking', x)
        assert x < 3, 'too large'
        n = n + 1
    return n

print(check_all(sc.constant([1, 2])))
try:
    check_all(sc.constant([1, 2, 5, 0]))
except AssertionError as e:
    print('AssertionError:', e)
check_all(sc.constant([7]))

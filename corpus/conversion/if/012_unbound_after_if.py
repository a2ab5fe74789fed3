# id: conv-if-012
# construct: if
# modes: original,unstaged
# expect: agree
# about: variable bound only in the then-branch, read after the if when the test is false (uncaught UnboundLocalError)

def f(x):
    if x > 10:
        big = x * 2
        print('big branch')
    print('after if')
    return big


print(f(20))
print(f(3))

# id: conv-unbound-008
# construct: unbound
# modes: original,unstaged
# expect: agree
# about: the name bound by except ... as is deleted at the end of the except clause; reading it afterwards fails (uncaught)

def f(x):
    err = 'before'
    try:
        1 / x
    except ZeroDivisionError as err:
        print('caught', type(err).__name__)
    print('after try')
    return err


print(f(1))
print(f(0))

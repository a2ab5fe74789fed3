# id: conv-unbound-001
# construct: unbound
# modes: original,unstaged
# expect: agree
# about: a local bound only in an untaken branch, read afterwards; the error is caught and reported

def f(flag):
    if flag:
        v = 'set'
    try:
        return v
    except UnboundLocalError as e:
        print(type(e).__name__)
        return 'unbound'


print(f(True), f(False))

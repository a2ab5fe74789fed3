# id: conv-unbound-010
# construct: unbound
# modes: original,unstaged
# expect: agree
# about: names assigned in a try body after the point where it raises stay unbound in except and after

def f(s):
    try:
        a = len(s)
        b = int(s)
        c = b * 2
    except ValueError:
        print('a bound:', a)
        try:
            print(b)
        except UnboundLocalError as e:
            print('b', type(e).__name__)
        c = -1
    return c


print(f('12'))
print(f('zz'))

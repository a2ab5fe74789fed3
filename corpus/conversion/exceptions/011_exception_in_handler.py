# id: conv-exceptions-011
# construct: exceptions
# modes: original,unstaged
# expect: agree
# about: an exception raised inside an except handler replaces the original; the finally still runs

def f(x):
    try:
        try:
            return 1 / x
        except ZeroDivisionError:
            print('handling zero')
            return [][x]
        finally:
            print('inner finally')
    except IndexError as e:
        return 'outer caught ' + type(e).__name__ + ' with context ' + type(e.__context__).__name__


print(f(4))
print(f(0))

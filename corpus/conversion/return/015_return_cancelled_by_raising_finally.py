# id: conv-return-015
# construct: return
# modes: original,unstaged,staged
# expect: agree
# about: a return whose finally raises is cancelled: the function goes on, and falling off its end returns None

def f(x):
    for i in range(2):
        try:
            try:
                return x
            finally:
                if i == 0:
                    {}[x]
        except KeyError:
            x = x + 1
    return ('end', x)


def g(x):
    try:
        try:
            if x:
                return 'early'
        finally:
            int('nope')
    except ValueError:
        pass


print(f(1), g(True), g(False))

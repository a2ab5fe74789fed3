# id: conv-exceptions-003
# construct: exceptions
# modes: original,unstaged
# expect: agree
# about: bare raise re-raises the current exception; raise in except with a different type sets __context__

def inner(x):
    try:
        return {'a': 1}[x]
    except KeyError:
        print('inner saw KeyError for', x)
        raise


def outer(x):
    try:
        return inner(x)
    except KeyError as e:
        try:
            raise ValueError('converted ' + str(e))
        except ValueError as v:
            ctx = v.__context__
            return type(v).__name__, str(v), type(ctx).__name__, v.__cause__


print(outer('a'))
print(outer('b'))

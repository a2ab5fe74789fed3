# id: conv-if-008
# construct: if
# modes: original,unstaged
# expect: agree
# about: a def inside an if branch; which definition is visible afterwards

def make(kind):
    if kind == 'sq':
        def op(x):
            return x * x
    elif kind == 'neg':
        def op(x):
            return -x
    else:
        op = None
    if op is None:
        return 'none'
    return op(7)


print(make('sq'), make('neg'), make('id'))

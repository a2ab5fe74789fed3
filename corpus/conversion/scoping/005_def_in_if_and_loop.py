# id: conv-scoping-005
# construct: scoping
# modes: original,unstaged
# expect: agree
# about: nested functions defined inside if and loop bodies capture the enclosing variables

def build(mode):
    ops = {}
    if mode == 'arith':
        base = 10

        def add(x):
            return x + base
        ops['add'] = add
    else:
        base = 'b'
    for name in ('dbl', 'neg'):
        if name == 'dbl':
            def op(x):
                return x * 2
        else:
            def op(x):
                return -x
        ops[name] = op
    base = 100
    return sorted((k, v(3)) for k, v in ops.items())


print(build('arith'))
print(build('other'))

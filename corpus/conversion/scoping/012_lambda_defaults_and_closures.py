# id: conv-scoping-012
# construct: scoping
# modes: original,unstaged
# expect: agree
# about: lambdas in a dict dispatch table, default arguments evaluated at creation, closure over a parameter

def make_ops(k):
    ops = {
        'add': lambda a, b=k: a + b,
        'mul': lambda a: a * k,
        'cmp': lambda a: 'big' if a > k else 'small',
    }
    k = k + 1
    return ops


def run():
    ops = make_ops(10)
    return [ops['add'](1), ops['add'](1, 2), ops['mul'](3), ops['cmp'](11), ops['cmp'](10)]


print(run())

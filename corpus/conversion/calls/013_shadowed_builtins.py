# id: conv-calls-013
# construct: calls
# modes: original,unstaged
# expect: agree
# about: locals, parameters and globals that shadow print/len/range/int are used instead of the builtins inside control flow

def range(n):
    return ['fake'] * n


def f(print, items):
    len = lambda xs: 'custom len'
    out = []
    for x in range(2):
        if x:
            out.append(print(x))
        out.append(len(items))
    int = str
    while not out[-1] == '7':
        out.append(int(7))
    return out


def show(*args):
    return 'show:' + ','.join(str(a) for a in args)


print(f(show, [1, 2, 3]))

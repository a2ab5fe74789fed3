# id: conv-lists_subscripts-010
# construct: lists_subscripts
# modes: original,unstaged
# expect: agree
# about: item assignment to a tuple and a string raises TypeError; a list inside a tuple can still be mutated

def f():
    t = (1, [2], 'x')
    out = []
    for target, idx, val in ((t, 0, 9), ('abc', 1, 'z'), (t[1], 0, 'ok')):
        try:
            target[idx] = val
            out.append('assigned')
        except TypeError as e:
            out.append(str(e))
    try:
        t[1] += [3]
    except TypeError as e:
        out.append(type(e).__name__)
    return t, out


print(f())

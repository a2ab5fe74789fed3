# id: conv-augassign_del-005
# construct: augassign_del
# modes: original,unstaged
# expect: agree
# about: del of list items, dict keys and slices inside loops; deleting a missing key raises KeyError

def f():
    xs = list(range(8))
    i = 0
    while i < len(xs):
        if xs[i] % 3 == 0:
            del xs[i]
        else:
            i += 1
    d = {'a': 1, 'b': 2, 'c': 3}
    for k in list(d):
        if d[k] % 2:
            del d[k]
    try:
        del d['zzz']
    except KeyError as e:
        print(type(e).__name__, e)
    return xs, d


print(f())

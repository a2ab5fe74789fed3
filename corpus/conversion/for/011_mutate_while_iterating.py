# id: conv-for-011
# construct: for
# modes: original,unstaged
# expect: agree
# about: appending to the list being iterated extends the loop; the iteration is bounded by a guard

def grow(xs):
    for x in xs:
        if x < 20 and len(xs) < 10:
            xs.append(x * 3)
    return xs


def dict_change():
    d = {'a': 1}
    try:
        for k in d:
            d[k + k] = 2
    except RuntimeError as e:
        print(type(e).__name__, e)
    return sorted(d)


print(grow([1, 2]))
print(dict_change())

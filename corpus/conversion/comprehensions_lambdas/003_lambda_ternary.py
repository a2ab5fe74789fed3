# id: conv-comprehensions_lambdas-003
# construct: comprehensions_lambdas
# modes: original,unstaged
# expect: agree
# about: lambdas with ternary bodies, used as keys for sorted/max and in map/filter

def f(words):
    key = lambda w: (0, w) if w[0].isupper() else (1, len(w), w)
    pick = lambda a, b: a if len(a) >= len(b) else b
    best = words[0]
    for w in words[1:]:
        best = pick(best, w)
    return sorted(words, key=key), best, list(map(lambda w: w.upper() if len(w) > 3 else w, words)), list(filter(lambda w: 'a' in w, words))


print(f(['pear', 'Apple', 'fig', 'banana', 'Kiwi']))

# id: conv-scoping-014
# construct: scoping
# modes: original,unstaged
# expect: agree
# about: closures appended in a loop share one nonlocal cell; calling them in turn updates it

def make():
    total = 0
    fns = []
    for i in range(1, 4):
        def add(step=i):
            nonlocal total
            total += step
            return total
        fns.append(add)
    results = [f() for f in fns] + [fns[0]()]
    return results, total


print(make())

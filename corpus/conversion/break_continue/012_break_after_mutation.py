# id: conv-break_continue-012
# construct: break_continue
# modes: original,unstaged
# expect: agree
# about: mutations in the iteration that breaks are kept; statements after break are not executed

def f(xs):
    acc = []
    total = 0
    for x in xs:
        acc.append(x)
        total += x
        if total > 10:
            break
        acc.append('ok')
        total *= 1
    return acc, total


print(f([3, 4, 5, 6]))
print(f([1, 1]))

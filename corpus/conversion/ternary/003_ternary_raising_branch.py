# id: conv-ternary-003
# construct: ternary
# modes: original,unstaged
# expect: agree
# about: the unselected branch would raise (ZeroDivisionError, KeyError) and must not be evaluated

def safe_div(a, b):
    return a / b if b != 0 else float('inf')


def lookup(d, k):
    return d[k] if k in d else 'missing'


print(safe_div(1, 4), safe_div(1, 0))
print(lookup({'a': 1}, 'a'), lookup({'a': 1}, 'b'))


def main():
    try:
        print((lambda b: 1 // b if b is not None else 0)(0))
    except ZeroDivisionError as e:
        print(type(e).__name__, e)


main()

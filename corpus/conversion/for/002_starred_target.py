# id: conv-for-002
# construct: for
# modes: original,unstaged
# expect: agree
# about: starred targets in a for loop; unpacking errors inside the loop are raised

def heads(rows):
    out = []
    for first, *rest in rows:
        out.append((first, len(rest)))
    return out


def lasts(rows):
    out = []
    for *init, a, b in rows:
        out.append((init, a + b))
    return out


print(heads([[1], [2, 3], 'abc']))
print(lasts([(1, 2), (1, 2, 3, 4)]))


def main():
    try:
        print(lasts([(1, 2, 3), (9,)]))
    except ValueError as e:
        print(type(e).__name__, e)


main()

# id: conv-if-001
# construct: if
# modes: original,unstaged
# expect: agree
# about: if/else assigning the same local in both branches, read after the statement

def classify(n):
    if n < 0:
        kind = 'negative'
    else:
        kind = 'non-negative'
    return kind


def main():
    for v in (-3, 0, 7):
        print(v, classify(v))


main()

result = [classify(v) for v in (-1, 1)]

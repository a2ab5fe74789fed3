# id: conv-lists_subscripts-008
# construct: lists_subscripts
# modes: original,unstaged
# expect: agree
# about: word counting with a plain dict; a missing key read in a loop ends the program with KeyError

def counts(text):
    c = {}
    for w in text.split():
        if w in c:
            c[w] += 1
        else:
            c[w] = 1
    return c


def report(c, wanted):
    for w in wanted:
        print(w, c[w])


c = counts('the cat and the hat and the bat')
print(sorted(c.items()))
report(c, ['the', 'and', 'dog', 'cat'])

# id: conv-for-007
# construct: for
# modes: original,unstaged
# expect: agree
# about: character loop counting vowels and building a run-length encoding

def rle(s):
    out = []
    prev = None
    n = 0
    for ch in s:
        if ch == prev:
            n += 1
        else:
            if prev is not None:
                out.append(prev + str(n))
            prev = ch
            n = 1
    if prev is not None:
        out.append(prev + str(n))
    return ''.join(out)


def vowels(s):
    c = 0
    for ch in s.lower():
        if ch in 'aeiou':
            c += 1
    return c


def main():
    for w in ('aaabccdddd', '', 'x', 'Mississippi'):
        print(repr(w), rle(w), vowels(w))


main()

# id: conv-while-011
# construct: while
# modes: original,unstaged
# expect: agree
# about: an off-by-one while loop reads past the end of a list and ends the program with IndexError

def pairwise_sums(xs):
    out = []
    i = 0
    while i < len(xs):
        print('at', i)
        out.append(xs[i] + xs[i + 1])
        i += 2
    return out


print(pairwise_sums([1, 2, 3, 4]))
print(pairwise_sums([1, 2, 3]))

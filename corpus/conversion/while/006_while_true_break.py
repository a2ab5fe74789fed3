# id: conv-while-006
# construct: while
# modes: original,unstaged
# expect: agree
# about: while True loop left only by break; variables updated before break are visible

def first_square_above(limit):
    n = 0
    while True:
        n += 1
        sq = n * n
        if sq > limit:
            break
        print('skip', sq)
    return n, sq


print(first_square_above(10))
print(first_square_above(0))

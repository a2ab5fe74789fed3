# id: conv-while-002
# construct: while
# modes: original,unstaged
# expect: agree
# about: the loop test is a call that prints; evaluated once per iteration plus the final failing test

count = 0


def more(i, limit):
    global count
    count += 1
    print('test', i)
    return i < limit


def run(limit):
    i = 0
    total = 0
    while more(i, limit):
        total += i
        i += 1
    return total


print(run(3))
print(run(0))
print('tests', count)

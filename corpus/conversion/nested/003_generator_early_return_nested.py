# id: conv-nested-003
# construct: nested
# modes: original,unstaged
# expect: agree
# about: a generator with nested loops, early return on a condition and try/finally, consumed with break and closed explicitly

def walk(rows):
    try:
        for i, row in enumerate(rows):
            for j, v in enumerate(row):
                if v is None:
                    print('hit None, returning')
                    return
                if v == 0:
                    continue
                yield i, j, v
    finally:
        print('walk cleanup')


def consume(rows, limit):
    out = []
    gen = walk(rows)
    for item in gen:
        out.append(item)
        if len(out) >= limit:
            break
    print('loop left with', len(out), 'items')
    gen.close()
    return out


print(consume([[1, 0, 2], [3, None, 4]], 10))
print(consume([[1, 2, 3]], 2))

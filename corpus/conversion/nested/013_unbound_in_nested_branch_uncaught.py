# id: conv-nested-013
# construct: nested
# modes: original,unstaged
# expect: agree
# about: a name assigned only in a nested branch of a loop, read after the loop when that branch never ran (uncaught UnboundLocalError)

def first_match(rows, pred):
    for row in rows:
        for v in row:
            if pred(v):
                if v > 0:
                    hit = v
                    break
    print('scanned', len(rows), 'rows')
    return hit


print(first_match([[1, 2], [3]], lambda v: v % 2 == 0))
print(first_match([[1, -2], [3]], lambda v: v % 2 == 0))

# id: conv-nested-002
# construct: nested
# modes: original,unstaged
# expect: agree
# about: return in try/finally inside a while in a for; all enclosing finally blocks run in order

def f(matrix, target):
    log = []
    try:
        for r, row in enumerate(matrix):
            c = 0
            while c < len(row):
                try:
                    if row[c] == target:
                        log.append('found')
                        return (r, c), log
                finally:
                    log.append('inner%d%d' % (r, c))
                c += 1
    finally:
        log.append('outer')
    return None, log


print(f([[1, 2], [3, 4]], 3))
print(f([[1]], 9))

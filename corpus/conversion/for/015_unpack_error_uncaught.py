# id: conv-for-015
# construct: for
# modes: original,unstaged
# expect: agree
# about: a for loop with a two-name target meets a three-element row; the ValueError ends the program

def table(rows):
    out = {}
    for key, value in rows:
        print('row', key)
        out[key] = value
    return out


print(table([('a', 1), ('b', 2)]))
print(table([('a', 1), ('b', 2, 3), ('c', 4)]))

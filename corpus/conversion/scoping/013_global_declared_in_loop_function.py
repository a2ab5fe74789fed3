# id: conv-scoping-013
# construct: scoping
# modes: original,unstaged
# expect: agree
# about: a function declares global and creates a new global inside a loop; later functions read it

def setup(n):
    global table
    for i in range(n):
        if i == 0:
            table = {}
        table[i] = i * i
    return len(table)


def read(i):
    return table.get(i, 'missing')


print(setup(4))
print(read(3), read(9))
print(setup(2), sorted(table))

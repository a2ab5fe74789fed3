# id: conv-for-004
# construct: for
# modes: original,unstaged
# expect: agree
# about: for loop assigning to list and dict subscripts as its target

def fill(values):
    slots = [None, None]
    d = {}
    for slots[0] in values:
        slots[1] = slots[0] ** 2
        print(slots)
    for d['k'] in 'ab':
        pass
    return slots, d


print(fill([2, 3, 4]))

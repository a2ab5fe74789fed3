# id: conv-for-003
# construct: for
# modes: original,unstaged
# expect: agree
# about: for loop assigning to an attribute of an object on each iteration

class Acc:
    def __init__(self):
        self.cur = None
        self.history = []


def walk(items):
    a = Acc()
    for a.cur in items:
        a.history.append(a.cur * 2)
    return a.cur, a.history


print(walk([1, 2, 3]))
print(walk([]))

# id: conv-assert-003
# construct: assert
# modes: original,unstaged
# expect: agree
# about: an invariant check in a stack implementation fails and the AssertionError ends the program

class Stack:
    def __init__(self):
        self.items = []

    def push(self, x):
        self.items.append(x)

    def pop(self):
        assert self.items, 'pop from empty stack (size %d)' % len(self.items)
        return self.items.pop()


def run():
    s = Stack()
    for i in range(3):
        s.push(i)
    out = []
    for _ in range(4):
        out.append(s.pop())
        print('popped', out[-1])
    return out


print(run())

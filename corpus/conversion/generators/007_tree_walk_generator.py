# id: conv-generators-007
# construct: generators
# modes: original,unstaged
# expect: agree
# about: recursive inorder traversal of a binary search tree with yield from, plus a generator with try/finally

class Node:
    def __init__(self, v):
        self.v = v
        self.left = None
        self.right = None


def insert(root, v):
    if root is None:
        return Node(v)
    if v < root.v:
        root.left = insert(root.left, v)
    else:
        root.right = insert(root.right, v)
    return root


def inorder(n):
    if n is not None:
        yield from inorder(n.left)
        yield n.v
        yield from inorder(n.right)


def guarded(xs):
    try:
        for x in xs:
            yield x
    finally:
        print('guarded finally')


def run():
    root = None
    for v in [5, 3, 8, 1, 4, 9, 7]:
        root = insert(root, v)
    out = []
    for v in guarded(inorder(root)):
        out.append(v)
    return out


print(run())

# id: conv-return-011
# construct: return
# modes: original,unstaged
# expect: agree
# about: recursive tree search returning from inside a loop over children

class Node:
    def __init__(self, val, *kids):
        self.val = val
        self.kids = list(kids)


def find_path(node, target):
    if node.val == target:
        return [node.val]
    for k in node.kids:
        p = find_path(k, target)
        if p is not None:
            return [node.val] + p
    return None


tree = Node(1, Node(2, Node(4), Node(5, Node(8))), Node(3, Node(6), Node(7)))
print(find_path(tree, 8))
print(find_path(tree, 7))
print(find_path(tree, 9))

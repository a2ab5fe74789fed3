# id: staged-seeds-008
# construct: seeds
# modes: original,unstaged,staged
# expect: agree
# about: AutoGraph §7: the recursive tree product, staged through call nodes (a tree as index arrays; recursion on a staged condition; the result type found by checked guessing)

import stagecheck as sc

# A binary tree as arrays: children by index (-1: empty), a value per node.
LEFT = sc.constant([1, 3, -1, -1, -1])
RIGHT = sc.constant([2, 4, -1, -1, -1])
VALUE = sc.constant([2.0, 3.0, 5.0, 7.0, 11.0])

@sc.function
def tree_prod(base, node):
    if node < 0:
        r = base
    else:
        l = tree_prod(base, LEFT[node])
        rr = tree_prod(base, RIGHT[node])
        r = l * rr * VALUE[node]
    return r

print(tree_prod(sc.constant(1.0), sc.constant(0)))
print(tree_prod(sc.constant(2.0), sc.constant(1)))
print(tree_prod(sc.constant(1.0), sc.constant(-1)))

# id: conv-logical-006
# construct: logical
# modes: original,unstaged
# expect: agree
# about: x or default idiom and and-guards protecting attribute and index access

class P:
    def __init__(self, name=None, kids=None):
        self.name = name
        self.kids = kids


def label(p):
    name = p.name or 'anon'
    first = p.kids and p.kids[0].name or '-'
    return name + '/' + first


print(label(P('root', [P('kid')])))
print(label(P()))
print(label(P('', [])))
print(label(P('x', [P()])))

# id: conv-nested-007
# construct: nested
# modes: original,unstaged
# expect: agree
# about: a class-based expression tree evaluated by recursive methods with if/elif dispatch and a loop over children

class Node:
    def __init__(self, op, *kids, value=None):
        self.op = op
        self.kids = kids
        self.value = value

    def evaluate(self, env):
        if self.op == 'num':
            return self.value
        elif self.op == 'var':
            if self.value not in env:
                raise NameError('unbound ' + self.value)
            return env[self.value]
        vals = [k.evaluate(env) for k in self.kids]
        if self.op == 'add':
            total = 0
            for v in vals:
                total += v
            return total
        elif self.op == 'mul':
            prod = 1
            for v in vals:
                if v == 0:
                    return 0
                prod *= v
            return prod
        elif self.op == 'if':
            return vals[1] if vals[0] else vals[2]
        raise ValueError('bad op ' + self.op)


def num(v):
    return Node('num', value=v)


def var(n):
    return Node('var', value=n)


tree = Node('add', num(1), Node('mul', var('x'), num(3)), Node('if', var('c'), num(10), num(20)))
print(tree.evaluate({'x': 2, 'c': True}))
print(tree.evaluate({'x': 0, 'c': False}))


def main():
    try:
        tree.evaluate({'c': 1})
    except NameError as e:
        print(type(e).__name__, e)


main()

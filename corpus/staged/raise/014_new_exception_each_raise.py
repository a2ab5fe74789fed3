# id: staged-raise-014
# construct: raise
# modes: original,unstaged,staged
# expect: agree
# about: each execution of a raise node raises a new exception, as each raise of the original does: two caught ones are different objects with their own attributes; a custom __init__ whose arguments are not args, a KeyError from a plain helper, and a class attribute counting constructions (once when staged: construction runs when traced, so it is only read here, never printed)
import stagecheck as sc


class E(Exception):
    def __init__(self, what, code):
        super().__init__(what)
        self.code = code


def lookup(key):
    return {'a': 1}[key]


@sc.function
def f(x):
    if x > 2:
        raise E('big', 7)
    elif x < 0:
        return x + lookup('missing')
    return x * 2


caught = []
for v in [1, 3, 5, -1, 0]:
    try:
        print(int(f(sc.constant(v))))
    except E as e:
        e.code += v
        caught.append(e)
        print('E', e.args, e.code)
    except KeyError as e:
        print('KeyError', e)
print(caught[0] is caught[1], caught[0].code, caught[1].code)

# id: staged-raise-013
# construct: raise
# modes: original,unstaged,staged
# expect: refused
# reason: StagingError: a E raised in staged control flow cannot be deferred to execution: its arguments or attributes hold a list, dict, set or bytearray, which the original may build anew at each raise (each raise of the graph gets the one built when traced)
# about: an exception carrying a list built by its raise: the original builds a new list at each raise, a handler that appends to it tells (each raise of a graph is a new exception, but its payload was built once, when traced)
import stagecheck as sc


class E(Exception):
    def __init__(self, what, seen):
        super().__init__(what)
        self.seen = seen


@sc.function
def f(x):
    if x > 2:
        raise E('big', [])
    return x * 2


for v in [1, 3, 5]:
    try:
        print(int(f(sc.constant(v))))
    except E as e:
        e.seen.append(v)
        print('E', e.args, e.seen)
